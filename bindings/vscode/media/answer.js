'use strict'
// The chat view's answer while it streams in: the text the extension posts
// is kept until the next animation frame, which renders what is new only
// (at most BUDGET characters of it a frame, the rest the next frames): the
// answer's finished blocks once, then its unfinished rest again (plain text
// is appended as text). Its finished parts go to the virtualizer
// (virtual.js), which detaches them while far from the view.
// Loaded by the webview (window.radiumAnswer).
;(function (root) {
  // A paragraph holds about PIECE characters at most: a longer line goes on
  // in the next one, so the browser lays out a piece, not the whole line, as
  // text comes (and skips pieces far from the view: chat.css).
  const PIECE = 4096
  // Pieces of a long line go into groups of GROUP pieces (about 64 KB).
  const GROUP = 16
  // An unfinished block longer than this is shown as text (white space kept)
  // until it ends, not rendered again each frame; finished, it stays so.
  const RAW_OVER = 64 * 1024
  // Finished blocks go into chunks of about CHUNK characters of Markdown,
  // the unit that is detached far from the view.
  const CHUNK = 8 * 1024
  // At most this many new characters are rendered a frame, so a frame's
  // work is bounded however much text arrives at once (the extension sends
  // up to 256 K characters a message).
  const BUDGET = 64 * 1024

  /** The first `n` characters of `s` or fewer, never half of a surrogate pair. */
  function head (s, n) {
    if (s.length <= n) return s
    const c = s.charCodeAt(n - 1)
    return s.slice(0, c >= 0xd800 && c < 0xdc00 ? n - 1 : n)
  }

  /**
   * The answers of one log: `md`, the Markdown renderer; `virtual`, the
   * virtualizer; `el(tag, cls)` makes an element; `add(e)` appends it to
   * the log.
   */
  function create ({ md, virtual, el, add }) {
    // The answer streaming in: `text`, its text from the end of its finished
    // blocks (rendered once); `fresh`, the text not rendered yet; `blocks`,
    // the code blocks so far; `tail`, the nodes of the rest (rendered again
    // as it grows); `shown`, the length of the text they show; `plain`, the
    // last <p> of a tail that is one line of plain text, or (`raw`) an
    // unfinished block too long to render each frame, shown as text (text
    // is appended to it); `plainLen`, the characters in that <p>; `chunk`,
    // the chunk finished blocks go to; `group`, the group pieces go to.
    let answer = null

    /** Appends HTML to the answer; answers the nodes it made. */
    function appendHtml (a, html) {
      const before = a.el.childNodes.length
      a.el.insertAdjacentHTML('beforeend', html)
      return Array.from(a.el.childNodes).slice(before)
    }

    function appendFinished (a, markdown) {
      if (!a.chunk || a.chunk !== a.el.lastChild || a.chunkLen > CHUNK) {
        virtual.watch(a.chunk)
        a.chunk = a.el.appendChild(el('div', 'chunk'))
        a.chunkLen = 0
      }
      a.chunk.insertAdjacentHTML('beforeend', md.render(markdown, a.blocks))
      a.chunkLen += markdown.length
    }

    /** Appends text to the answer's plain (or raw) tail, a new piece each PIECE characters or so. */
    function appendPlain (a, more) {
      while (more) {
        const at = md.pieceCut(a.plainLen, more, PIECE)
        const part = at < 0 ? more : more.slice(0, at)
        if (part) { a.plain.appendChild(document.createTextNode(part)); a.plainLen += part.length }
        if (at < 0) return
        more = more.slice(at)
        a.plain.classList.add('joined')
        // The pieces go in groups of GROUP, a full one finished (watched).
        if (!a.group || !a.group.isConnected || a.group.childNodes.length >= GROUP) {
          virtual.watch(a.group)
          a.group = a.el.appendChild(el('div', 'pieces'))
          a.tail.push(a.group)
        }
        a.plain = a.group.appendChild(el('p', a.raw ? 'raw cont' : 'cont'))
        a.plainLen = 0
      }
    }

    /** Renders the unfinished rest of the answer again (or, long, as text). */
    function renderRest (a, rest) {
      for (const n of a.tail) n.remove()
      if (rest.length > RAW_OVER) {
        a.raw = true
        a.plain = a.el.appendChild(el('p', 'raw'))
        a.tail = [a.plain]
        a.plainLen = 0
        appendPlain(a, rest)
      } else {
        a.tail = appendHtml(a, md.render(rest, a.blocks))
        a.plain = md.plainLine(rest) && a.tail.length === 1 && a.tail[0].nodeName === 'P' ? a.tail[0] : null
        a.plainLen = rest.length
      }
      a.shown = rest.length
    }

    /**
     * Renders what is new since the last frame (up to BUDGET characters):
     * finished blocks once, then the unfinished rest. Answers whether it
     * rendered anything.
     */
    function render () {
      const a = answer
      if (!a || !a.fresh) return false
      // The text is kept from the finished blocks' end only, and the new
      // text is appended to it here: a frame's work is the new text and the
      // unfinished rest, never the whole answer.
      const fresh = head(a.fresh, BUDGET)
      a.fresh = a.fresh.slice(fresh.length)
      a.text += fresh
      // Blocks end only at a new line break: without one in the new text,
      // the finished blocks are as they were (no scan of the whole rest).
      // The scan for them goes on where it stopped (`a.scan`).
      const cut = /[\r\n]/.test(fresh) ? md.settled(a.text, 0, a.scan) : { end: 0, blocks: 0 }
      if (cut.end > 0) {
        const unshown = a.text.slice(a.shown, cut.end)
        if (a.plain && cut.end > RAW_OVER && (a.raw || !/\S/.test(unshown))) {
          // A long block already on screen as text stays as it is.
          if (a.raw) appendPlain(a, unshown)
        } else {
          for (const n of a.tail) n.remove()
          appendFinished(a, a.text.slice(0, cut.end))
        }
        virtual.watch(a.group)
        Object.assign(a, { tail: [], plain: null, raw: false, shown: 0, plainLen: 0, group: null })
        a.text = a.text.slice(cut.end)
        md.rebase(a.scan, cut.end)
        a.blocks += cut.blocks
      }
      // With a plain (or raw) tail no block ended this frame: what is new
      // is `fresh`, appended as text (the rest is not sliced, so not copied).
      if (a.plain && (a.raw || md.plainMore(fresh))) {
        appendPlain(a, fresh)
        a.shown = a.text.length
      } else {
        renderRest(a, a.text)
      }
      return true
    }

    return {
      /** Text for the answer (a new answer when none is streaming). */
      text (more) {
        if (!answer) answer = { el: add(el('div', 'msg agent md')), text: '', fresh: '', scan: {}, blocks: 0, tail: [], shown: 0, plain: null, raw: false, plainLen: 0 }
        answer.fresh += more
      },
      render,
      /** Whether text waits to be rendered. */
      get waiting () { return !!(answer && answer.fresh) },
      /** Ends the answer: all of its text rendered, its last parts finished. */
      end () {
        while (render());
        if (answer) { virtual.watch(answer.chunk); virtual.watch(answer.group) }
        answer = null
      },
      /** Forgets the answer (the log was cleared). */
      clear () { answer = null },
    }
  }

  root.radiumAnswer = { create }
})(typeof self !== 'undefined' ? self : this)
