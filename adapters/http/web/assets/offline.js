'use strict'
  // The offline web app on the pages it keeps (docs/web.md#offline): registers the service worker (/sw.js),
  // shows "Offline" while the browser is, shows the changes made offline before they are sent (the worker
  // queues them), says when they were sent or could not be, and asks the worker to bring what it keeps up to
  // date when the page opens online and when the network returns.
;(function () {
  var sw = navigator.serviceWorker
  var script = document.currentScript
  // At the origin's root only: under an embedding's path prefix (docs/embedding.md#mounting) the app's
  // addresses are not the worker's, and the pages simply load from the network.
  var atRoot = script && new URL(script.src, location.href).pathname.indexOf('/assets/') === 0

  var banner = document.createElement('p')
  banner.id = 'offline-banner'
  banner.className = 'offline-banner'
  banner.setAttribute('role', 'status')
  banner.hidden = true
  var notice = document.createElement('p')
  notice.id = 'offline-notice'
  notice.className = 'offline-notice'
  notice.setAttribute('role', 'status')
  notice.hidden = true
  var main = document.querySelector('main')
  if (main) {
    main.parentNode.insertBefore(banner, main)
    main.parentNode.insertBefore(notice, main)
  }

  function showOnline() {
    var offline = navigator.onLine === false
    banner.hidden = !offline
    banner.textContent = offline ? 'Offline' : ''
  }

  function say(text) {
    notice.textContent = text
    notice.hidden = text === ''
  }

  /** A question to the worker, answered on a channel of its own; null without a worker. */
  function ask(message) {
    if (!sw || !sw.controller) return Promise.resolve(null)
    return new Promise(function (resolve) {
      var channel = new MessageChannel()
      channel.port1.onmessage = function (event) {
        resolve(event.data)
      }
      sw.controller.postMessage(message, [channel.port2])
    })
  }

  var itemOfCard = function (card) {
    var link = card.querySelector('a.title')
    var match = link && /\/queue\/items\/([^/]+)\/open$/.exec(link.getAttribute('href') || '')
    return match ? decodeURIComponent(match[1]) : null
  }

  /** Each item's state once what waits is sent, in the order it was done. */
  function outcomeOf(list) {
    var state = {}
    list.forEach(function (action) {
      var item = state[action.id] || (state[action.id] = {})
      if (action.kind === 'delete') item.deleted = true
      else if (action.kind === 'read-state') item.isRead = action.isRead
    })
    return state
  }

  function setToggle(button, isRead) {
    button.value = isRead ? 'false' : 'true'
    button.textContent = isRead ? 'Mark unread' : 'Mark read'
  }

  /** The page as it will be once what waits is sent (the server's own answer would show the same). */
  function showPending(list) {
    var state = outcomeOf(list)
    var filter = location.pathname === '/' ? new URLSearchParams(location.search).get('state') || 'unread' : null
    Array.prototype.forEach.call(document.querySelectorAll('li.item-card'), function (card) {
      var id = itemOfCard(card)
      var item = id === null ? null : state[id]
      if (!item) return
      if (
        item.deleted ||
        (filter === 'unread' && item.isRead === true) ||
        (filter === 'read' && item.isRead === false)
      ) {
        card.remove()
        return
      }
      if (item.isRead === undefined) return
      var toggle = card.querySelector('button[name="isRead"]')
      if (toggle) setToggle(toggle, item.isRead)
      card.classList.toggle('read', item.isRead)
      card.classList.toggle('unread', !item.isRead)
    })
    var form = document.querySelector('.reader-actions form')
    var match = form && /\/queue\/items\/([^/]+)\/read-state$/.exec(form.getAttribute('action') || '')
    var item = match && state[decodeURIComponent(match[1])]
    if (item && item.isRead !== undefined) {
      form.querySelector('input[name="isRead"]').value = item.isRead ? 'false' : 'true'
      form.querySelector('button').textContent = item.isRead ? 'Mark unread' : 'Mark read'
    }
    if (list.length > 0)
      say(
        list.length === 1
          ? '1 change made offline will be sent when you are back online.'
          : list.length + ' changes made offline will be sent when you are back online.',
      )
  }

  function refreshPending() {
    return ask({ type: 'pending' }).then(function (answer) {
      if (answer && answer.pending) showPending(answer.pending)
    })
  }

  /** Online: the worker sends what waits, then brings the kept pages up to date. */
  function sync(force) {
    if (navigator.onLine === false) return Promise.resolve(null)
    return ask({ type: 'sync', force: force })
  }

  var labels = { 'read-state': 'a read state', delete: 'a delete', progress: 'a reading position' }

  function heard(event) {
    var data = event.data || {}
    if (data.type === 'queued') {
      refreshPending()
      showOnline()
    } else if (data.type === 'replayed') {
      var parts = []
      if (data.sent > 0)
        parts.push(data.sent === 1 ? '1 change made offline was sent.' : data.sent + ' changes made offline were sent.')
      data.dropped.forEach(function (action) {
        parts.push(
          'Not applied: ' +
            labels[action.kind] +
            (action.status === 404 ? ' for an item that no longer exists.' : ' that the server refused.'),
        )
      })
      if (data.waiting > 0) parts.push(data.waiting + ' still waiting.')
      say(parts.join(' '))
    } else if (data.type === 'signed-out') {
      say('Sign in again to send the changes you made offline.')
    }
  }

  showOnline()
  window.addEventListener('offline', showOnline)
  window.addEventListener('online', function () {
    showOnline()
    sync(true)
  })
  if (!sw || !atRoot) return
  sw.addEventListener('message', heard)
  // The queue's script puts new content in <main> without a reload: it is shown as pending changes leave it.
  if (main)
    new MutationObserver(function () {
      refreshPending()
    }).observe(main, { childList: true })
  sw.register('/sw.js', { scope: '/' })
    .then(function () {
      return sw.ready
    })
    .then(function () {
      // The first visit: the worker takes the page over as it activates (clients.claim).
      if (sw.controller) return null
      return new Promise(function (resolve) {
        sw.addEventListener('controllerchange', resolve, { once: true })
      })
    })
    .then(function () {
      return refreshPending()
    })
    .then(function () {
      return sync(false)
    })
    .then(function () {
      document.documentElement.setAttribute('data-offline-ready', '')
    })
    .catch(function () {
      // No worker (blocked, private mode, an old browser): the pages work online as before.
    })
})()
