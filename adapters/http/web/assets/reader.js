'use strict'
;(function () {
  var article = document.querySelector('article[data-item-id]')
  if (!article) return
  // How long after scrolling stops the position is saved (the server's tests read it from here).
  var SAVE_DELAY_MS = 1000
  // Under a path prefix (docs/embedding.md#mounting) the page is at <prefix>/items/<id>: progress goes beside it.
  var base = location.pathname.slice(0, location.pathname.lastIndexOf('/items/'))
  var url = base + '/items/' + encodeURIComponent(article.getAttribute('data-item-id')) + '/progress'
  var csrf = article.getAttribute('data-csrf') || ''
  var saved = Number(article.getAttribute('data-progress')) || 0
  // The saved position is the truth (it may come from another device), not the browser's own memory.
  if ('scrollRestoration' in history) history.scrollRestoration = 'manual'

  var sent = saved
  var timer = null

  function room() {
    return document.documentElement.scrollHeight - window.innerHeight
  }

  // scrollY / (scrollHeight - innerHeight), 0 to 1, to four places; within 2 px of the end (a zoomed page
  // scrolls in fractions) counts as the end, which marks the item read.
  function progress() {
    var max = room()
    if (max <= 0) return 1
    if (max - window.scrollY <= 2) return 1
    return Math.round(Math.min(1, Math.max(0, window.scrollY / max)) * 10000) / 10000
  }

  function save(keepalive) {
    clearTimeout(timer)
    timer = null
    var value = progress()
    // Scrolling back and forth to the same place (or our own restore) is not worth a write.
    if (sent !== null && Math.abs(value - sent) < 0.001 && (value === 1) === (sent === 1)) return
    sent = value
    var body = new URLSearchParams()
    body.set('csrf', csrf)
    body.set('progress', String(value))
    fetch(url, { method: 'POST', body: body, credentials: 'same-origin', keepalive: keepalive })
      .then(function (response) {
        if (!response.ok) sent = null
      })
      .catch(function () {
        sent = null
      })
  }

  function flush() {
    if (timer !== null) save(true)
  }

  // A finished article opens at its top: reading it again starts there.
  var restoredTo = null
  function restore() {
    if (saved <= 0 || saved >= 1 || room() <= 0) return
    window.scrollTo(0, Math.round(saved * room()))
    restoredTo = window.scrollY
  }
  restore()
  // Images that arrive later make the page longer: place the reader again unless they have moved since.
  window.addEventListener('load', function () {
    if (restoredTo !== null && window.scrollY === restoredTo) restore()
  })

  window.addEventListener(
    'scroll',
    function () {
      clearTimeout(timer)
      timer = setTimeout(save, SAVE_DELAY_MS, false)
    },
    { passive: true },
  )
  // Leaving before the delay is up: keepalive lets the request outlive the page.
  window.addEventListener('pagehide', flush)
  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState === 'hidden') flush()
  })
})()
