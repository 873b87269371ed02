'use strict'
// The chat webview: renders what the extension posts (the conversation, the
// answer streaming in as Markdown, tool calls with their diffs, permission
// prompts, reviews with a decision per hunk) and posts back what the user
// does. Rendering is batched to one pass per animation frame however fast
// the text arrives, and renders only what is new (answer.js); finished
// parts of answers far from the view are detached (virtual.js). The time
// from the extension host receiving an event to its text on screen is
// measured here and reported at each turn's end.
;(function () {
  const vscode = acquireVsCodeApi()
  const md = window.radiumMarkdown
  const $ = (id) => document.getElementById(id)
  const log = $('log')
  // Finished parts of answers far from the view are detached (virtual.js);
  // the page's `radiumChat` answers an answer's whole text and finds a text
  // in all of the chat (the browser's find reaches only what is attached).
  const virtual = window.radiumVirtual.create(log)
  window.radiumChat = { text: (e) => virtual.text(e), find: (needle, last) => virtual.reveal(needle, last), virtual }
  const input = $('input')
  const agent = $('agent')
  const send = $('send')
  const stop = $('stop')
  // The agent's mode, model and effort pickers: filled from its controls once its
  // session has started; a change asks the extension (which asks the agent).
  const pickers = { mode: $('mode'), model: $('model'), thought_level: $('effort') }
  function options (m) {
    for (const [category, select] of Object.entries(pickers)) {
      const control = (m.options || []).find((c) => c.category === category) || (m.options || []).find((c) => c.id === category)
      if (!control || !Array.isArray(control.values) || control.values.length === 0) { select.hidden = true; continue }
      select.replaceChildren(...control.values.map((v) => {
        const o = el('option', '', v.name && v.name !== v.value ? v.name : v.value)
        o.value = v.value
        if (v.description) o.title = v.description
        return o
      }))
      select.value = control.current
      select.dataset.current = control.current || ''
      select.hidden = false
    }
  }
  const slash = $('slash')
  const usage = $('usage')
  // The agent's slash commands ({name, description, hint}); the `/` menu
  // lists those whose name starts with what follows a leading `/`.
  let commands = []
  let menu = [] // the commands the menu shows
  let selected = 0
  let asked = false
  let pendingT = []
  let latencies = []
  const tools = new Map()
  const perms = new Map()
  // The last prompt shown: its turn's end gives it a Restore action (the
  // files back to before it), with the tag of before the prompt.
  let lastUser = null
  const restorable = (tag) => {
    if (!lastUser || typeof tag !== 'string' || lastUser.querySelector('.restore')) return
    const b = button('Restore files to before this prompt', () => vscode.postMessage({ type: 'restore', tag }), 'secondary restore')
    b.title = 'Lists the files it changes first, then asks'
    lastUser.appendChild(b)
  }

  const el = (tag, cls, text) => {
    const e = document.createElement(tag)
    if (cls) e.className = cls
    if (text !== undefined) e.textContent = text
    return e
  }
  const button = (label, onClick, cls) => {
    const b = el('button', cls, label)
    b.addEventListener('click', onClick)
    return b
  }
  // The log follows what comes in only while it is at its end: a user who
  // scrolled up to read stays there until they scroll back down or send.
  let following = true
  let setTop = 0
  log.addEventListener('scroll', () => {
    if (log.scrollHeight - log.scrollTop - log.clientHeight < 48) following = true
    else if (log.scrollTop < setTop - 4) following = false
  }, { passive: true })
  const scroll = (force) => {
    if (force === true) following = true
    if (!following) return
    log.scrollTop = log.scrollHeight
    setTop = log.scrollTop
  }
  const add = (e) => { log.appendChild(e); scroll(); return e }

  function diffView (diffs) {
    const box = el('div', 'diffs')
    for (const d of diffs || []) {
      const f = el('div', 'diff')
      f.appendChild(el('div', 'diff-path', d.path))
      const pre = el('pre')
      for (const line of d.lines) pre.appendChild(el('div', line[0] === '+' ? 'add' : line[0] === '-' ? 'del' : 'hdr', line))
      f.appendChild(pre)
      box.appendChild(f)
    }
    return box
  }

  // The answer streaming in (answer.js), rendered once an animation frame.
  const answers = window.radiumAnswer.create({ md, virtual, el, add })
  /** The time to screen of the text rendered, once all of it is. */
  function shown () {
    if (answers.waiting) return
    const ts = pendingT
    pendingT = []
    // After the browser painted this frame.
    setTimeout(() => { const now = Date.now(); for (const t of ts) latencies.push(now - t) }, 0)
  }
  function renderAnswer () {
    if (!answers.render()) return
    scroll()
    shown()
  }
  function frame () { renderAnswer(); requestAnimationFrame(frame) }
  requestAnimationFrame(frame)

  function onText (m) {
    answers.text(m.text)
    pendingT.push(m.t)
  }

  function endAnswer () {
    if (!answers.waiting) return answers.end()
    answers.end()
    scroll()
    shown()
  }

  function stats () {
    const s = [...latencies].sort((a, b) => a - b)
    const at = (q) => s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : 0
    return { count: s.length, p50: at(0.5), p95: at(0.95), max: s.length ? s[s.length - 1] : 0 }
  }

  function toolCard (m) {
    let card = tools.get(m.id)
    if (!card) {
      endAnswer()
      card = { el: add(el('details', 'tool')), title: m.title || 'tool call', kind: m.kind || '', status: '' }
      card.summary = card.el.appendChild(el('summary'))
      card.body = card.el.appendChild(el('div'))
      tools.set(m.id, card)
    }
    if (m.title) card.title = m.title
    if (m.kind) card.kind = m.kind
    if (m.status) card.status = m.status
    if (typeof m.command === 'string') card.command = `$ ${m.command}${m.cwd ? `   (in ${m.cwd})` : ''}`
    if (Array.isArray(m.output)) card.output = m.output
    if (typeof m.exitCode === 'number') card.exitCode = m.exitCode
    card.summary.textContent = `${card.kind ? `[${card.kind}] ` : ''}${card.command || card.title}${card.status ? ` · ${card.status}` : ''}`
    card.el.dataset.status = card.status
    if (m.diffs && m.diffs.length) { card.body.replaceChildren(diffView(m.diffs)) }
    if (card.output || card.exitCode) {
      // The command's output under it (a later one replaces it; a long one
      // comes folded), the card opened when it first arrives.
      if (!card.out) card.out = card.el.appendChild(el('pre', 'output'))
      const lines = [...(card.output || [])]
      if (card.exitCode) lines.push(`[exit ${card.exitCode}]`)
      card.out.textContent = lines.join('\n')
      if (!card.opened) { card.el.open = true; card.opened = true }
    }
  }

  function permission (m) {
    endAnswer()
    // What the call changes first, the question and its buttons under it;
    // the card is built whole before it is added, so the panel scrolls to
    // its end: the question on screen with the diff right above it (a long
    // diff scrolls inside the card).
    const card = el('div', 'perm')
    card.dataset.id = m.id
    card.appendChild(diffView(m.diffs))
    card.appendChild(el('div', 'perm-title', `Allow ${m.title}?`))
    const row = card.appendChild(el('div', 'row'))
    const answerWith = (choice) => () => { vscode.postMessage({ type: 'permission', id: m.id, choice }); row.replaceChildren(el('span', 'muted', 'answered…')) }
    row.appendChild(button('Allow once', answerWith('once')))
    row.appendChild(button('Always allow', answerWith('always'), 'secondary'))
    row.appendChild(button('Reject', answerWith('reject'), 'secondary'))
    if (m.reviewable) row.appendChild(button('Review hunks…', () => vscode.postMessage({ type: 'toolReview', id: m.id }), 'secondary'))
    add(card)
    // Once laid out (fonts, the diff's lines), the card's end at the panel's bottom.
    requestAnimationFrame(() => card.scrollIntoView({ block: 'end' }))
    perms.set(m.id, card)
  }

  function decided (m) {
    const why = m.by === 'timeout' ? 'timed out: rejected' : `${m.allowed ? 'allowed' : 'rejected'}${m.by && m.by !== 'door' ? ` by ${m.by}` : ''}`
    for (const card of perms.values()) {
      if (card.dataset.done) continue
      card.dataset.done = '1'
      card.querySelector('.row').replaceChildren(el('span', m.allowed ? 'ok' : 'muted', why))
      return
    }
    add(el('div', 'notice', why))
  }

  const reviews = new Map()
  function review (m) {
    endAnswer()
    let box = reviews.get(m.id)
    if (!box) { box = add(el('div', 'review')); box.dataset.id = m.id; reviews.set(m.id, box) }
    const post = (action, extra) => vscode.postMessage({ type: 'review', id: m.id, action, ...extra })
    box.replaceChildren(el('div', 'review-title', m.done ? (m.summary || 'reviewed') : (m.title || `Review: ${m.files.length} file(s)`)))
    m.files.forEach((f, i) => {
      const file = box.appendChild(el('div', 'review-file'))
      const name = file.appendChild(el('a', 'file-link', `${f.label}${f.isNew ? ' (new file)' : ''}`))
      name.href = '#'
      name.addEventListener('click', (e) => { e.preventDefault(); post('open', { file: i }) })
      f.hunks.forEach((h, k) => {
        const hunk = file.appendChild(el('div', `hunk${h.accepted === true ? ' accepted' : h.accepted === false ? ' rejected' : ''}`))
        hunk.appendChild(diffView([{ path: '', lines: h.lines }]))
        if (m.done) return
        const row = hunk.appendChild(el('div', 'row'))
        row.appendChild(button(h.accepted === true ? '✓ Accepted' : 'Accept', () => post('accept', { file: i, hunk: k }), h.accepted === true ? '' : 'secondary'))
        row.appendChild(button(h.accepted === false ? '✗ Rejected' : 'Reject', () => post('reject', { file: i, hunk: k }), h.accepted === false ? '' : 'secondary'))
      })
    })
    if (!m.done) {
      const row = box.appendChild(el('div', 'row'))
      row.appendChild(button('Accept all', () => post('acceptAll'), 'secondary'))
      row.appendChild(button('Reject all', () => post('rejectAll'), 'secondary'))
      row.appendChild(button(m.applyLabel || 'Apply', () => post('apply')))
    }
    scroll()
  }

  function chips (list) {
    const box = $('chips')
    box.replaceChildren()
    list.forEach((c, i) => {
      const chip = box.appendChild(el('span', `chip${c.changed ? ' changed' : ''}`, `${c.kind === 'selection' ? '⌶ ' : c.kind === 'image' ? '🖼 ' : '📄 '}${c.label}${c.changed ? ' (changed)' : ''}`))
      chip.appendChild(button('×', () => vscode.postMessage({ type: 'removeChip', index: i }), 'x'))
    })
  }

  /** The `/` menu: shown while the input is `/` and the start of a command's name. */
  function slashMenu () {
    const m = /^\/(\S*)$/.exec(input.value)
    if (m && commands.length === 0 && !asked) {
      // The agent's session starts now, so its commands come.
      asked = true
      vscode.postMessage({ type: 'wantCommands' })
    }
    menu = m ? commands.filter((c) => c.name.startsWith(m[1])) : []
    slash.hidden = menu.length === 0
    selected = Math.min(selected, Math.max(0, menu.length - 1))
    slash.replaceChildren(...menu.map((c, i) => {
      const row = el('div', `slash-item${i === selected ? ' selected' : ''}`)
      row.setAttribute('role', 'option')
      row.appendChild(el('span', 'slash-name', `/${c.name}`))
      if (c.hint) row.appendChild(el('span', 'slash-hint', `<${c.hint}>`))
      row.appendChild(el('span', 'slash-desc', c.description))
      row.addEventListener('mousedown', (e) => { e.preventDefault(); pick(i) })
      return row
    }))
  }
  function pick (i) {
    input.value = `/${menu[i].name} `
    slash.hidden = true
    menu = []
    input.focus()
  }
  function showUsage (text) {
    if (!text) return
    usage.textContent = `usage: ${text}`
    usage.hidden = false
  }

  function busy (on) {
    send.disabled = on
    stop.disabled = !on
    document.body.dataset.busy = on ? '1' : ''
  }

  window.addEventListener('message', ({ data: m }) => {
    switch (m.type) {
      case 'init':
        agent.replaceChildren(...m.agents.map((a) => { const o = el('option', '', a); o.value = a; return o }))
        agent.value = m.agent
        if (m.error) add(el('div', 'error', m.error))
        busy(m.busy)
        break
      case 'focus': input.focus(); break
      case 'chips': chips(m.chips); break
      case 'user': {
        endAnswer()
        const u = add(el('div', 'msg user', m.text))
        if (m.chips.length) u.appendChild(el('div', 'muted', `with ${m.chips.join(', ')}`))
        lastUser = u
        scroll(true)
        break
      }
      case 'text': onText(m); break
      case 'thought': endAnswer(); add(el('div', 'thought', m.text)); break
      case 'tool': toolCard(m); break
      case 'permission': permission(m); break
      case 'decided': decided(m); break
      case 'plan': endAnswer(); add(el('ol', 'plan')).replaceChildren(...m.entries.map((e) => el('li', e.status, e.content))); break
      case 'write': {
        endAnswer()
        const w = add(el('div', 'write', `wrote ${m.path}${m.by === 'agent' ? ' (by the agent)' : m.by === 'review' ? ' (your review)' : ''} `))
        w.appendChild(button('Undo', () => vscode.postMessage({ type: 'undo', tag: m.tag }), 'secondary'))
        break
      }
      case 'notice': endAnswer(); add(el('div', 'notice', m.message)); break
      case 'error': endAnswer(); add(el('div', 'error', m.message)); restorable(m.tagBefore); break
      case 'commands': commands = Array.isArray(m.commands) ? m.commands : []; asked = commands.length > 0; slashMenu(); break
      case 'usage': showUsage(m.text); break
      case 'turnEnd': {
        endAnswer()
        showUsage(m.usage)
        restorable(m.tagBefore)
        const ms = m.timings && m.timings.turn_ms
        add(el('div', 'turn-end', m.stopReason === 'end_turn' ? `done${ms !== undefined ? ` in ${Math.round(ms)} ms` : ''}` : `stopped: ${m.stopReason}`))
        setTimeout(() => {
          const s = stats()
          $('stats').dataset.latency = JSON.stringify(s)
          vscode.postMessage({ type: 'latency', ...s })
          latencies = []
        }, 50)
        break
      }
      case 'hostStats': $('stats').dataset.host = JSON.stringify(m); break
      case 'busy': busy(m.busy); break
      case 'review': review(m); break
      case 'options': options(m); break
      case 'clear': for (const p of Object.values(pickers)) p.hidden = true; commands = []; asked = false; usage.hidden = true; slashMenu(); virtual.clear(); log.replaceChildren(); answers.clear(); tools.clear(); perms.clear(); reviews.clear(); break
    }
  })

  function submit () {
    const text = input.value
    if (!text.trim() || send.disabled) return
    input.value = ''
    vscode.postMessage({ type: 'send', text })
  }
  input.addEventListener('keydown', (e) => {
    if (!slash.hidden && menu.length) {
      // The `/` menu: arrows move, Enter or Tab takes the command, Escape closes.
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault()
        selected = (selected + (e.key === 'ArrowDown' ? 1 : menu.length - 1)) % menu.length
        return slashMenu()
      }
      if ((e.key === 'Enter' || e.key === 'Tab') && !e.shiftKey && !e.isComposing) { e.preventDefault(); return pick(selected) }
      if (e.key === 'Escape') { e.preventDefault(); slash.hidden = true; return }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); submit() }
  })
  input.addEventListener('input', () => { selected = 0; slashMenu() })
  send.addEventListener('click', submit)
  stop.addEventListener('click', () => vscode.postMessage({ type: 'stop' }))
  $('new').addEventListener('click', () => vscode.postMessage({ type: 'newChat' }))
  agent.addEventListener('change', () => vscode.postMessage({ type: 'agent', agent: agent.value }))
  for (const [option, select] of Object.entries(pickers)) {
    select.addEventListener('change', () => vscode.postMessage({ type: 'option', option, value: select.value }))
  }
  $('addSel').addEventListener('click', () => vscode.postMessage({ type: 'attach', what: 'selection' }))
  $('addFile').addEventListener('click', () => vscode.postMessage({ type: 'attach', what: 'file' }))
  $('addFiles').addEventListener('click', () => vscode.postMessage({ type: 'attach', what: 'files' }))
  $('addImage').addEventListener('click', () => vscode.postMessage({ type: 'attach', what: 'image' }))
  // An image pasted into the input becomes a chip (its bytes read here, in
  // base64; one over 10 MiB is not read: the extension names its size).
  input.addEventListener('paste', (e) => {
    const items = [...(e.clipboardData?.items ?? [])].filter((i) => i.kind === 'file' && i.type.startsWith('image/'))
    if (!items.length) return
    e.preventDefault()
    for (const item of items) {
      const file = item.getAsFile()
      if (!file) continue
      if (file.size > 10 * 1024 * 1024) {
        vscode.postMessage({ type: 'pasteImage', mimeType: file.type, size: file.size })
        continue
      }
      const reader = new FileReader()
      reader.onload = () => vscode.postMessage({ type: 'pasteImage', mimeType: file.type, data: String(reader.result).replace(/^data:[^,]*,/, '') })
      reader.readAsDataURL(file)
    }
  })
  // A copy takes all the selection spans: what is detached in it is put back first.
  document.addEventListener('copy', () => {
    const sel = window.getSelection()
    if (sel && sel.rangeCount) virtual.attachIn(sel.getRangeAt(0))
  }, true)
  log.addEventListener('click', (e) => {
    const a = e.target.closest('a[data-href]')
    if (a) { e.preventDefault(); vscode.postMessage({ type: 'link', href: a.dataset.href }) }
  })
  vscode.postMessage({ type: 'ready' })
})()
