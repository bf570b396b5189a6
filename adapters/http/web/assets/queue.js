'use strict'
;(function () {
  var current = -1
  var busy = false

  function cards() {
    return Array.prototype.slice.call(document.querySelectorAll('li.item-card'))
  }
  // A card is known by its title's address (/queue/items/{id}/open).
  function idOf(card) {
    var link = card.querySelector('a.title')
    return link ? link.getAttribute('href') : null
  }

  function mark(index, focus) {
    var all = cards()
    if (all.length === 0) {
      current = -1
      return
    }
    current = Math.max(0, Math.min(index, all.length - 1))
    all.forEach(function (card, i) {
      card.classList.toggle('current', i === current)
    })
    var link = all[current].querySelector('a.title')
    if (focus && link) {
      link.focus()
      all[current].scrollIntoView({ block: 'nearest' })
    }
  }

  // Our own pages only: the queue and its actions, never another origin or the reader view.
  function ours(url) {
    return (
      url.origin === location.origin &&
      (url.pathname === '/' || url.pathname.indexOf('/queue/') === 0) &&
      !/\/open$/.test(url.pathname)
    )
  }

  function swap(response, push) {
    return response.text().then(function (text) {
      var next = new DOMParser().parseFromString(text, 'text/html')
      var main = next.querySelector('main')
      if (!main) throw new Error('no main')
      var keep = current >= 0 && cards()[current] ? idOf(cards()[current]) : null
      document.querySelector('main').innerHTML = main.innerHTML
      document.title = next.title
      var url = response.url || location.href
      if (push) history.pushState(null, '', url)
      else history.replaceState(null, '', url)
      // The same item stays current if it is still shown, else the one now at its place.
      var all = cards()
      var at =
        keep === null
          ? -1
          : all.findIndex(function (card) {
              return idOf(card) === keep
            })
      if (current >= 0) mark(at >= 0 ? at : current, true)
      var status = document.querySelector('#queue-status')
      if (status && status.textContent.trim() !== '' && current < 0) {
        var undo = status.querySelector('button')
        if (undo) undo.focus()
      }
    })
  }

  function load(url, init, push) {
    if (busy) return Promise.resolve()
    busy = true
    document.documentElement.setAttribute('aria-busy', 'true')
    return fetch(url, Object.assign({ credentials: 'same-origin', headers: { accept: 'text/html' } }, init))
      .then(function (response) {
        return swap(response, push)
      })
      .finally(function () {
        busy = false
        document.documentElement.removeAttribute('aria-busy')
      })
  }

  document.addEventListener('submit', function (event) {
    var form = event.target
    if (!(form instanceof HTMLFormElement) || form.hasAttribute('data-plain')) return
    var submitter = event.submitter || null
    var action = (submitter && submitter.getAttribute('formaction')) || form.getAttribute('action') || location.href
    var url = new URL(action, location.href)
    if (!ours(url)) return
    event.preventDefault()
    // The pressed button's name and value are part of the form's data, as in a plain submit.
    var data = new URLSearchParams(new FormData(form, submitter))
    var method = (form.getAttribute('method') || 'get').toLowerCase()
    var request =
      method === 'post'
        ? load(
            url.href,
            {
              method: 'POST',
              body: data,
              headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
            },
            true,
          )
        : load(url.pathname + '?' + data.toString(), {}, true)
    // Anything unexpected (offline, a page without <main>): the plain form does it the long way.
    request.catch(function () {
      form.setAttribute('data-plain', '')
      if (submitter) submitter.click()
      else form.submit()
    })
  })

  document.addEventListener('click', function (event) {
    var link = event.target instanceof Element ? event.target.closest('a[href]') : null
    if (!link || link.target || event.defaultPrevented || event.button !== 0) return
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    var url = new URL(link.href, location.href)
    if (!ours(url) || (url.pathname !== '/' && url.pathname !== '/queue/folders' && !/\/move$/.test(url.pathname)))
      return
    event.preventDefault()
    load(url.href, {}, true).catch(function () {
      location.href = url.href
    })
  })

  window.addEventListener('popstate', function () {
    load(location.href, {}, false).catch(function () {
      location.reload()
    })
  })

  document.addEventListener('keydown', function (event) {
    if (event.metaKey || event.ctrlKey || event.altKey) return
    var target = event.target
    if (target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)))
      return
    var all = cards()
    if (event.key === 'j') {
      mark(current + 1, true)
      event.preventDefault()
    } else if (event.key === 'k') {
      mark(current < 0 ? 0 : current - 1, true)
      event.preventDefault()
    } else if (event.key === 'o' && all[current]) {
      all[current].querySelector('a.title').click()
      event.preventDefault()
    } else if (event.key === 'm' && all[current]) {
      var toggle = all[current].querySelector('button[name="isRead"]')
      if (toggle) toggle.form.requestSubmit(toggle)
      event.preventDefault()
    } else if (event.key === '/') {
      var search = document.querySelector('input[name="q"]')
      if (search) {
        search.focus()
        search.select()
        event.preventDefault()
      }
    }
  })
})()
