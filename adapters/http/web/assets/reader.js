'use strict'
;(function () {
  var article = document.querySelector('article[data-item-id]')
  if (!article) return
  // The script's own work on load, for the bench (bench/highlights-web.ts reads this measure).
  performance.mark('reader.js:start')
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

  // A link to a highlight (#highlight-<id>, from /highlights or the list under the article) opens at its
  // mark, not at the saved position (docs/web.md#highlights).
  var linked = /^#highlight-./.test(location.hash)

  // A finished article opens at its top: reading it again starts there.
  var restoredTo = null
  function restore() {
    if (linked || saved <= 0 || saved >= 1 || room() <= 0) return
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

  // ── Highlights (docs/highlights.md#web, docs/web.md#reader-view) ──────────────────────────────────────
  // The marks come from the server, placed from each highlight's offsets in the article's text. Here: a
  // selection becomes a highlight ("Highlight", or h), a mark opens its note, colours and delete, and a link to
  // a mark scrolls to it. After each change the article and the list are read again from the page.
  var body = article.querySelector('.article')
  var itemUrl = base + '/items/' + encodeURIComponent(article.getAttribute('data-item-id'))
  var COLORS = ['yellow', 'green', 'blue', 'pink', 'purple']
  var COLOR_NAMES = { yellow: 'Yellow', green: 'Green', blue: 'Blue', pink: 'Pink', purple: 'Purple' }
  // As the server's limits say (docs/highlights.md#limits).
  var CONTEXT = 32
  // core/reading/article-text.ts: the elements that start a paragraph of the text.
  var BLOCK = {}
  'p h1 h2 h3 h4 h5 h6 ul ol li pre blockquote figure figcaption table caption tr hr div section article'
    .split(' ')
    .forEach(function (name) {
      BLOCK[name] = true
    })
  var busy = false

  // JavaScript's /\s/, one UTF-16 code unit (core/highlights/mark-article.ts#isCollapsibleSpace).
  function isSpace(code) {
    return (
      (code >= 0x09 && code <= 0x0d) ||
      code === 0x20 ||
      code === 0xa0 ||
      code === 0x1680 ||
      (code >= 0x2000 && code <= 0x200a) ||
      code === 0x2028 ||
      code === 0x2029 ||
      code === 0x202f ||
      code === 0x205f ||
      code === 0x3000 ||
      code === 0xfeff
    )
  }

  // Where each character of a paragraph as read lands in the paragraph articleText keeps, or -1.
  function paragraphOffsets(current, pre) {
    var offsets = new Int32Array(current.length)
    var i
    if (pre) {
      var lead = 0
      while (lead < current.length && current.charCodeAt(lead) === 0x0a) lead++
      var end = current.length
      while (end > lead && isSpace(current.charCodeAt(end - 1))) end--
      for (i = 0; i < current.length; i++) offsets[i] = i < lead || i >= end ? -1 : i - lead
      return offsets
    }
    var out = 0
    var spaceFrom = -1
    for (i = 0; i < current.length; i++) {
      if (isSpace(current.charCodeAt(i))) {
        if (spaceFrom < 0) spaceFrom = i
        continue
      }
      if (spaceFrom >= 0) {
        offsets.fill(out > 0 ? out++ : -1, spaceFrom, i)
        spaceFrom = -1
      }
      offsets[i] = out++
    }
    if (spaceFrom >= 0) offsets.fill(-1, spaceFrom)
    return offsets
  }

  // The article's text as the server stores it (core/reading/article-text.ts, the same rules over the DOM):
  // the text, each text node's first unit (UTF-16 code unit) and each unit's offset in the text (-1: dropped).
  function readText() {
    var paragraphs = []
    var length = 0
    var current = ''
    var pieces = []
    var preDepth = 0
    var starts = new Map()
    var offsets = []
    var units = 0
    function flush() {
      if (current === '') return
      var pre = preDepth > 0
      var text = pre ? current.replace(/^\n+|\s+$/g, '') : current.replace(/\s+/g, ' ').trim()
      var at = length + (paragraphs.length > 0 ? 2 : 0)
      var relative = paragraphOffsets(current, pre)
      pieces.forEach(function (piece) {
        for (var i = 0; i < piece.length; i++) {
          var offset = relative[piece.at + i]
          offsets[piece.unit + i] = text && offset >= 0 ? at + offset : -1
        }
      })
      if (text) {
        paragraphs.push(text)
        length = at + text.length
      }
      current = ''
      pieces = []
    }
    function visit(node) {
      if (node.nodeType === 3) {
        starts.set(node, units)
        pieces.push({ at: current.length, length: node.data.length, unit: units })
        units += node.data.length
        current += node.data
        return
      }
      if (node.nodeType !== 1) return
      var name = node.localName
      if (BLOCK[name]) flush()
      if (name === 'pre') preDepth++
      if (name === 'br') current += '\n'
      if (name === 'td' || name === 'th') current += ' '
      for (var child = node.firstChild; child; child = child.nextSibling) visit(child)
      if (BLOCK[name]) flush()
      if (name === 'pre') preDepth = Math.max(0, preDepth - 1)
    }
    for (var child = body.firstChild; child; child = child.nextSibling) visit(child)
    flush()
    return { text: paragraphs.join('\n\n'), starts: starts, offsets: offsets, units: units }
  }

  // The unit a boundary point of a range is at: in a text node, its offset there; between nodes, the first
  // text that follows.
  function unitAt(read, container, offset) {
    if (container.nodeType === 3) return read.starts.has(container) ? read.starts.get(container) + offset : -1
    var walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT)
    var node = container.childNodes[offset] || null
    if (node && node.nodeType === 3) return read.starts.get(node)
    if (!node) {
      node = container
      while (node.lastChild) node = node.lastChild
    }
    walker.currentNode = node
    var next = walker.nextNode()
    return next ? read.starts.get(next) : read.units
  }

  // The selection inside the article (clipped to it), or null.
  function selectedRange() {
    var selection = window.getSelection()
    if (!selection || selection.rangeCount === 0 || selection.isCollapsed) return null
    var range = selection.getRangeAt(0)
    if (!range.intersectsNode(body)) return null
    var all = document.createRange()
    all.selectNodeContents(body)
    var clipped = range.cloneRange()
    if (clipped.compareBoundaryPoints(Range.START_TO_START, all) < 0) clipped.setStart(body, 0)
    if (clipped.compareBoundaryPoints(Range.END_TO_END, all) > 0) clipped.setEnd(body, body.childNodes.length)
    return clipped.collapsed ? null : clipped
  }

  // Drops half of a surrogate pair at either end, as the server refuses lone surrogates.
  function wellFormed(text) {
    if (/^[\uDC00-\uDFFF]/.test(text)) text = text.slice(1)
    if (/[\uD800-\uDBFF]$/.test(text)) text = text.slice(0, -1)
    return text
  }

  // The passage a range selects: its offsets in the article's text, the passage and 32 characters of context.
  function passageOf(range) {
    var read = readText()
    var from = unitAt(read, range.startContainer, range.startOffset)
    var to = unitAt(read, range.endContainer, range.endOffset)
    if (from < 0 || to < 0) return null
    var start = -1
    var end = -1
    var i
    for (i = from; i < to; i++)
      if (read.offsets[i] >= 0) {
        start = read.offsets[i]
        // Starting inside a run of spaces: that run's one space is before the selection.
        if (i > 0 && read.offsets[i - 1] === start) start++
        break
      }
    for (i = to - 1; i >= from; i--)
      if (read.offsets[i] >= 0) {
        end = read.offsets[i] + 1
        break
      }
    var text = read.text
    if (start > 0 && /[\uDC00-\uDFFF]/.test(text[start])) start--
    if (end > 0 && end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1])) end++
    if (start < 0 || end <= start || text.slice(start, end).trim() === '') return null
    return {
      exact: text.slice(start, end),
      prefix: wellFormed(text.slice(Math.max(0, start - CONTEXT), start)),
      suffix: wellFormed(text.slice(end, end + CONTEXT)),
      start: String(start),
      end: String(end),
    }
  }

  // ── Talking to the server ──
  function post(url, fields) {
    var form = new URLSearchParams()
    form.set('csrf', csrf)
    Object.keys(fields).forEach(function (name) {
      form.set(name, fields[name])
    })
    return fetch(url, {
      method: 'POST',
      body: form,
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
    }).then(
      function (response) {
        if (response.ok) return response.status === 204 ? null : response.json()
        return response
          .json()
          .catch(function () {
            return null
          })
          .then(function (problem) {
            throw new Error(
              problem && problem.message
                ? problem.message
                : response.status === 403
                  ? 'This page has expired: reload it and try again.'
                  : 'That did not work (' + response.status + '). Try again.',
            )
          })
      },
      function () {
        throw new Error('Readlater could not be reached. Check the connection and try again.')
      },
    )
  }

  // The article and the list, read again from the page: only the parts of the article that changed are
  // replaced, so images elsewhere stay loaded and the reader stays where they are.
  function refresh() {
    return fetch(location.pathname, { credentials: 'same-origin', headers: { accept: 'text/html' } })
      .then(function (response) {
        if (!response.ok || response.redirected) throw new Error('reload')
        return response.text()
      })
      .then(function (text) {
        var next = new DOMParser().parseFromString(text, 'text/html')
        var nextBody = next.querySelector('article[data-item-id] .article')
        var nextList = next.getElementById('highlights')
        var list = document.getElementById('highlights')
        if (!nextBody || !nextList || !list) throw new Error('reload')
        var before = Array.prototype.slice.call(body.childNodes)
        var after = Array.prototype.slice.call(nextBody.childNodes)
        if (before.length !== after.length) body.replaceChildren.apply(body, after.map(adopt))
        else
          for (var i = 0; i < before.length; i++)
            if (!before[i].isEqualNode(after[i])) body.replaceChild(adopt(after[i]), before[i])
        list.replaceWith(adopt(nextList))
        wire()
      })
      .catch(function () {
        throw new Error('Done, but the page could not be brought up to date: reload it.')
      })
  }
  function adopt(node) {
    return document.adoptNode(node)
  }

  // ── The page's controls, made here: without JavaScript none of them could work ──
  function element(name, attributes, text) {
    var node = document.createElement(name)
    Object.keys(attributes || {}).forEach(function (key) {
      node.setAttribute(key, attributes[key])
    })
    if (text) node.textContent = text
    return node
  }

  var live = element('p', { class: 'visually-hidden', role: 'status' })
  var hint = element('span', { id: 'hl-hint', hidden: '' }, 'Highlight. Enter: note, colour, delete.')
  var bar = element('div', { class: 'hl-bar', hidden: '' })
  var create = element('button', { type: 'button' }, 'Highlight')
  var barError = element('p', { class: 'error hl-error', role: 'alert' })
  bar.append(create, barError)

  var panel = element('div', { class: 'hl-panel', role: 'dialog', 'aria-label': 'Highlight', hidden: '' })
  var panelNote = element('p', { class: 'hl-note' })
  var colors = element('div', { class: 'hl-colors', role: 'group', 'aria-label': 'Colour' })
  COLORS.forEach(function (color) {
    var button = element('button', { type: 'button', class: 'hl-color', 'data-color': color }, '')
    button.append(element('span', { class: 'hl-dot hl-' + color }), COLOR_NAMES[color])
    colors.append(button)
  })
  var noteToggle = element('button', { type: 'button', class: 'secondary' }, 'Add note')
  var noteForm = element('form', { class: 'hl-note-form', hidden: '' })
  var noteField = element('textarea', { id: 'hl-note-field', rows: '4', maxlength: '10000' })
  var noteSave = element('button', { type: 'submit' }, 'Save note')
  var noteCancel = element('button', { type: 'button', class: 'secondary' }, 'Cancel')
  noteForm.append(element('label', { for: 'hl-note-field' }, 'Note'), noteField, noteSave, noteCancel)
  var remove = element('button', { type: 'button', class: 'danger' }, 'Delete highlight')
  var close = element('button', { type: 'button', class: 'secondary' }, 'Close')
  var panelError = element('p', { class: 'error hl-error', role: 'alert' })
  var panelActions = element('div', { class: 'hl-panel-actions' })
  panelActions.append(noteToggle, remove, close)
  panel.append(panelNote, colors, panelActions, noteForm, panelError)
  article.append(live, hint, bar, panel)

  // The highlight the panel is open for, and where focus returns when it closes.
  var open = null

  function say(text) {
    live.textContent = ''
    setTimeout(function () {
      live.textContent = text
    }, 50)
  }

  function markOf(id) {
    return document.getElementById('highlight-' + id)
  }

  // A highlight's entry in the list under the article (found by its quote's id).
  function entryOf(id) {
    var quote = document.getElementById('quote-' + id)
    return quote ? quote.closest('li') : null
  }

  function colorOf(id) {
    var mark = markOf(id)
    for (var i = 0; mark && i < COLORS.length; i++) if (mark.classList.contains('hl-' + COLORS[i])) return COLORS[i]
    return 'yellow'
  }

  // Each highlight's first mark can be focused; Enter (or a click on any of its marks) opens its panel.
  function wire() {
    var marks = body.querySelectorAll('mark.hl[id]')
    for (var i = 0; i < marks.length; i++) {
      marks[i].tabIndex = 0
      marks[i].setAttribute('aria-describedby', 'hl-hint')
    }
    var help = document.querySelector('#highlights .hl-help')
    if (help) help.hidden = false
  }

  function setBusy(on) {
    busy = on
    if (on) article.setAttribute('aria-busy', 'true')
    else article.removeAttribute('aria-busy')
  }

  // ── Creating ──
  var barFrame = 0
  function updateBar() {
    cancelAnimationFrame(barFrame)
    barFrame = requestAnimationFrame(function () {
      var range = selectedRange()
      if (range && range.toString().trim() !== '') {
        bar.hidden = false
        return
      }
      if (!busy && barError.textContent === '') bar.hidden = true
    })
  }

  function highlightSelection() {
    if (busy) return
    var range = selectedRange()
    var passage = range && passageOf(range)
    barError.textContent = ''
    if (!passage) {
      bar.hidden = false
      barError.textContent = 'Select some text of the article first.'
      return
    }
    var kept = range.cloneRange()
    setBusy(true)
    create.disabled = true
    post(itemUrl + '/highlights', passage)
      .then(function (answer) {
        return refresh().then(function () {
          return answer.highlight.id
        })
      })
      .then(function (id) {
        var selection = window.getSelection()
        if (selection) selection.removeAllRanges()
        bar.hidden = true
        var mark = markOf(id)
        if (mark) mark.focus({ preventScroll: true })
        say('Highlighted.')
      })
      .catch(function (error) {
        barError.textContent = error.message
        refused = kept
        bar.hidden = false
        // The selection stays, to try again or to change it.
        var selection = window.getSelection()
        if (selection && selection.isCollapsed) {
          selection.removeAllRanges()
          selection.addRange(kept)
        }
      })
      .then(function () {
        setBusy(false)
        create.disabled = false
      })
  }

  // Pressing the button must not take the selection away first.
  create.addEventListener('mousedown', function (event) {
    event.preventDefault()
  })
  create.addEventListener('click', highlightSelection)
  // An error stays while the selection it is about does (also when it was put back after the error).
  var refused = null
  function sameRange(a, b) {
    return a.compareBoundaryPoints(Range.START_TO_START, b) === 0 && a.compareBoundaryPoints(Range.END_TO_END, b) === 0
  }
  document.addEventListener('selectionchange', function () {
    var range = selectedRange()
    if (!busy && !(refused && range && sameRange(range, refused))) {
      barError.textContent = ''
      refused = null
    }
    updateBar()
  })

  // ── A highlight's panel ──
  function showPanel(id) {
    var mark = markOf(id)
    var entry = entryOf(id)
    if (!mark && !entry) return closePanel(false)
    var note = entry && entry.querySelector('.hl-note')
    var color = colorOf(id)
    panelNote.textContent = note ? note.textContent : ''
    panelNote.hidden = !note
    noteToggle.textContent = note ? 'Edit note' : 'Add note'
    var buttons = colors.querySelectorAll('button')
    for (var i = 0; i < buttons.length; i++)
      buttons[i].setAttribute('aria-pressed', String(buttons[i].getAttribute('data-color') === color))
    var marks = body.querySelectorAll('mark.hl')
    for (var j = 0; j < marks.length; j++)
      marks[j].classList.toggle('hl-open', marks[j].getAttribute('data-highlight') === id)
  }

  function openPanel(id) {
    open = id
    panelError.textContent = ''
    noteForm.hidden = true
    panelActions.hidden = false
    panel.hidden = false
    showPanel(id)
    noteToggle.focus()
  }

  function closePanel(returnFocus) {
    var id = open
    open = null
    panel.hidden = true
    var marks = body.querySelectorAll('mark.hl-open')
    for (var i = 0; i < marks.length; i++) marks[i].classList.remove('hl-open')
    if (returnFocus && id !== null && markOf(id)) markOf(id).focus()
  }

  // Runs a change of the open highlight, then reads the page again; errors stay in the panel.
  function changeOpen(path, fields, done) {
    if (busy || open === null) return
    var id = open
    panelError.textContent = ''
    setBusy(true)
    post(itemUrl + '/highlights/' + encodeURIComponent(id) + path, fields)
      .then(refresh)
      .then(function () {
        done(id)
      })
      .catch(function (error) {
        panelError.textContent = error.message
      })
      .then(function () {
        setBusy(false)
      })
  }

  colors.addEventListener('click', function (event) {
    var button = event.target instanceof Element ? event.target.closest('button[data-color]') : null
    if (!button) return
    var color = button.getAttribute('data-color')
    changeOpen('', { color: color }, function (id) {
      showPanel(id)
      say('Colour: ' + COLOR_NAMES[color] + '.')
    })
  })

  noteToggle.addEventListener('click', function () {
    var entry = open === null ? null : entryOf(open)
    var note = entry && entry.querySelector('.hl-note')
    noteField.value = note ? note.textContent : ''
    panelActions.hidden = true
    panelNote.hidden = true
    noteForm.hidden = false
    noteField.focus()
  })

  function endNoteEditing() {
    noteForm.hidden = true
    panelActions.hidden = false
    panelNote.hidden = panelNote.textContent === ''
    noteToggle.focus()
  }

  noteForm.addEventListener('submit', function (event) {
    event.preventDefault()
    changeOpen('', { note: noteField.value }, function (id) {
      showPanel(id)
      endNoteEditing()
      say(noteField.value.trim() === '' ? 'Note removed.' : 'Note saved.')
    })
  })
  noteCancel.addEventListener('click', endNoteEditing)

  remove.addEventListener('click', function () {
    changeOpen('/delete', {}, function () {
      closePanel(false)
      body.focus({ preventScroll: true })
      say('Highlight deleted.')
    })
  })
  close.addEventListener('click', function () {
    closePanel(true)
  })

  // A click on a mark (not the end of a selection made across it, not on a link) opens its panel.
  body.addEventListener('click', function (event) {
    var mark = event.target instanceof Element ? event.target.closest('mark.hl') : null
    if (!mark || event.target.closest('a[href]')) return
    var selection = window.getSelection()
    if (selection && !selection.isCollapsed) return
    openPanel(mark.getAttribute('data-highlight'))
  })
  document.addEventListener('click', function (event) {
    if (open === null || !(event.target instanceof Node)) return
    if (panel.contains(event.target) || body.contains(event.target)) return
    closePanel(false)
  })

  document.addEventListener('keydown', function (event) {
    if (event.defaultPrevented || event.metaKey || event.ctrlKey || event.altKey) return
    var target = event.target
    if (event.key === 'Escape' && open !== null) {
      if (!noteForm.hidden) endNoteEditing()
      else closePanel(true)
      event.preventDefault()
      return
    }
    if (target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)))
      return
    if ((event.key === 'Enter' || event.key === ' ') && target instanceof Element && target.matches('mark.hl')) {
      openPanel(target.getAttribute('data-highlight'))
      event.preventDefault()
    } else if (event.key === 'h' && !event.shiftKey && selectedRange()) {
      highlightSelection()
      event.preventDefault()
    }
  })

  // ── Links to a mark ──
  // The browser scrolls to the mark itself (the page's CSS keeps it off the window's top edge) and keeps it
  // there while images load; the mark is focused, so Enter opens its panel.
  function showLinked() {
    var match = /^#highlight-(.+)$/.exec(location.hash)
    var mark = null
    try {
      mark = match ? markOf(decodeURIComponent(match[1])) : null
    } catch (error) {
      mark = null
    }
    if (mark) mark.focus({ preventScroll: true })
  }

  body.tabIndex = -1
  wire()
  if (linked) showLinked()
  window.addEventListener('hashchange', showLinked)
  performance.measure('reader.js', 'reader.js:start')
})()
