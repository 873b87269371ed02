'use strict'
// A small Markdown renderer for the chat view (no dependency): headings,
// paragraphs, lists, block quotes, rules, fenced code (highlighted, and an
// unclosed fence while an answer streams), inline code, bold, italics and
// links. Everything is HTML-escaped first; links keep only http(s) targets.
// Loaded by the webview (window.radiumMarkdown) and by node --test.
;(function (root) {
  const escape = (s) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c])

  const KEYWORDS = new Set(('as async await break case catch class const continue def default del do elif else enum export ' +
    'extends false fn for from func function go if impl import in interface let loop match mod module mut new nil ' +
    'none null package pass pub raise return self static struct super switch this throw true try type typeof use ' +
    'var void while with yield None True False local then end elseif').split(' '))

  /** Code, escaped, with spans for comments, strings, numbers and keywords. */
  function highlight (code, language) {
    const lang = (language || '').toLowerCase()
    const hashComments = /^(py|python|sh|bash|shell|zsh|toml|yaml|yml|rb|ruby|r|make|makefile|dockerfile|conf)$/.test(lang)
    const dashComments = /^(lua|sql|haskell|hs)$/.test(lang)
    const comment = hashComments ? '#[^\\n]*' : dashComments ? '--[^\\n]*' : '\\/\\/[^\\n]*|\\/\\*[\\s\\S]*?(?:\\*\\/|$)'
    const re = new RegExp(`(${comment})|("(?:[^"\\\\\\n]|\\\\.)*"?|'(?:[^'\\\\\\n]|\\\\.)*'?|\`(?:[^\`\\\\]|\\\\.)*\`?)|(\\b\\d[\\d_]*(?:\\.\\d+)?\\b)|([A-Za-z_][A-Za-z0-9_]*)`, 'g')
    let out = ''
    let at = 0
    for (const m of code.matchAll(re)) {
      out += escape(code.slice(at, m.index))
      const [all, com, str, num, word] = m
      if (com) out += `<span class="tok-comment">${escape(all)}</span>`
      else if (str) out += `<span class="tok-string">${escape(all)}</span>`
      else if (num) out += `<span class="tok-number">${escape(all)}</span>`
      else if (word && KEYWORDS.has(word)) out += `<span class="tok-keyword">${escape(all)}</span>`
      else out += escape(all)
      at = m.index + all.length
    }
    return out + escape(code.slice(at))
  }

  /** Inline Markdown of one escaped-later line run. */
  function inline (text) {
    const parts = text.split(/(`+[^`]*?`+)/)
    return parts.map((part, i) => {
      if (i % 2 === 1) return `<code>${escape(part.replace(/^`+|`+$/g, ''))}</code>`
      let s = escape(part)
      s = s.replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, (_, label, href) => `<a href="${href}" data-href="${href}">${label}</a>`)
      s = s.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
      s = s.replace(/(^|[^*\w])\*([^*\s][^*]*)\*(?!\w)/g, '$1<em>$2</em>')
      s = s.replace(/(^|[^_\w])_([^_\s][^_]*)_(?!\w)/g, '$1<em>$2</em>')
      return s
    }).join('')
  }

  /** The opening line of a fenced code block: [, marker, info, rest]. */
  const FENCE = /^\s*(`{3,}|~{3,})\s*([^\s`]*)\s*([^`]*)$/
  /** Whether `line` closes the fence opened with `marker`. */
  const closes = (line, marker) => line.trim().startsWith(marker[0].repeat(marker.length)) && line.trim().replace(new RegExp(`^\\${marker[0]}+`), '') === ''

  /**
   * Renders Markdown to HTML. Code blocks get `data-index` (their order,
   * counted from `firstIndex`) and `data-path` when the info string names a
   * file, like the engine's extract.
   */
  function render (markdown, firstIndex = 0) {
    const lines = markdown.split(/\r\n|\r|\n/)
    const html = []
    let para = []
    let list = null // { tag, items: [] }
    let blocks = firstIndex
    const flushPara = () => {
      if (para.length) html.push(`<p>${inline(para.join('\n')).replace(/\n/g, '<br>')}</p>`)
      para = []
    }
    const flushList = () => {
      if (list) html.push(`<${list.tag}>${list.items.map((it) => `<li>${inline(it)}</li>`).join('')}</${list.tag}>`)
      list = null
    }
    const flush = () => { flushPara(); flushList() }
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]
      const fence = FENCE.exec(line)
      if (fence) {
        flush()
        const marker = fence[1]
        const language = fence[2].split(':')[0]
        const keyed = /(?:path|file|title|filename)="?([^\s"]+)/.exec(fence[3])
        const filePath = (fence[2].includes(':') ? fence[2].split(':').slice(1).join(':') : keyed ? keyed[1] : '').trim()
        const body = []
        let closed = false
        for (i++; i < lines.length; i++) {
          if (closes(lines[i], marker)) { closed = true; break }
          body.push(lines[i])
        }
        const attrs = `data-index="${blocks++}"${filePath ? ` data-path="${escape(filePath)}"` : ''}${closed ? '' : ' data-open="1"'}`
        const head = `<div class="code-head"><span>${escape(language || 'text')}${filePath ? ` · ${escape(filePath)}` : ''}</span></div>`
        html.push(`<div class="code" ${attrs}>${head}<pre><code class="lang-${escape(language)}">${highlight(body.join('\n'), language)}</code></pre></div>`)
        continue
      }
      const heading = /^(#{1,6})\s+(.*)$/.exec(line)
      if (heading) { flush(); html.push(`<h${heading[1].length}>${inline(heading[2])}</h${heading[1].length}>`); continue }
      if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) { flush(); html.push('<hr>'); continue }
      const quote = /^>\s?(.*)$/.exec(line)
      if (quote) { flush(); html.push(`<blockquote>${inline(quote[1])}</blockquote>`); continue }
      const item = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(line)
      if (item) {
        flushPara()
        const tag = /\d/.test(item[1]) ? 'ol' : 'ul'
        if (list && list.tag !== tag) flushList()
        list ??= { tag, items: [] }
        list.items.push(item[2])
        continue
      }
      if (line.trim() === '') { flush(); continue }
      if (list) { list.items[list.items.length - 1] += ` ${line.trim()}`; continue }
      para.push(line)
    }
    flush()
    return html.join('\n')
  }

  /**
   * Where the finished blocks of a text that is still growing end: just
   * after its last complete blank line outside a code fence, at or after
   * `from` (0, or an `end` this returned for the same text before it grew),
   * with the number of code blocks that start between `from` and `end`.
   * A blank line ends every block, so `render(text.slice(from, end), n)`
   * followed by `render(text.slice(end), n + blocks)` is `render(text.slice(from), n)`:
   * the finished part is rendered once, and only the rest again.
   * With `scan` (an object kept between calls for one text that only grows,
   * `{}` at first), the scan goes on where the last call stopped instead of
   * from `from`, so a long unfinished block is read once, not again at each
   * call; after the text's start is cut off at an `end`, `rebase(scan, end)`.
   */
  function settled (text, from = 0, scan = null) {
    const st = scan && scan.start !== undefined ? scan : { start: from, end: from, blocks: 0, opened: 0, marker: null }
    const breaks = /\r\n|\r|\n/g
    breaks.lastIndex = st.start
    for (let m = breaks.exec(text); m; m = breaks.exec(text)) {
      if (m[0] === '\r' && m.index + 1 === text.length) break // maybe the first half of \r\n
      const line = text.slice(st.start, m.index)
      st.start = m.index + m[0].length
      if (st.marker) {
        if (closes(line, st.marker)) st.marker = null
        continue
      }
      const fence = FENCE.exec(line)
      if (fence) {
        st.marker = fence[1]
        st.opened++
      } else if (line.trim() === '') {
        st.end = st.start
        st.blocks = st.opened
      }
    }
    if (scan) Object.assign(scan, st)
    return { end: st.end, blocks: st.blocks }
  }

  /** A `settled` scan of a text whose first `end` characters (an `end` it answered) were cut off. */
  function rebase (scan, end) {
    scan.start -= end
    scan.end -= end
    scan.opened -= scan.blocks
    scan.blocks = 0
  }

  /** Characters that may start a block (at a line's start) or inline markup, or end the line. */
  const SPECIAL = /[\r\n`*_[]/
  const BLOCK_START = /^\s*[#>\-*+_~`0-9]/

  /**
   * Whether `line` is one line of plain text: it renders as
   * `<p>${escape(line)}</p>`, and so does `line + more` for any `more` that
   * `plainMore` accepts (text appended to it can be appended as text).
   */
  const plainLine = (line) => line.trim() !== '' && !SPECIAL.test(line) && !BLOCK_START.test(line)
  const plainMore = (more) => !SPECIAL.test(more)

  /**
   * Where to cut text `s` appended to a piece of `len` characters so pieces
   * stay near `size` characters: just after the first white space at or past
   * `size`, or at `2 * size` when there is none; -1: no cut (all of `s` goes
   * into the piece, or no white space came yet and more text may bring one).
   * Linear in `size`, whatever the length of `s`.
   */
  function pieceCut (len, s, size) {
    if (len + s.length <= size) return -1
    const from = Math.max(0, size - len)
    const limit = Math.max(0, 2 * size - len)
    const k = s.slice(from, Math.min(s.length, limit)).search(/\s/)
    if (k >= 0) return from + k + 1
    return s.length < limit ? -1 : limit
  }

  const api = { render, highlight, escape, settled, rebase, plainLine, plainMore, pieceCut }
  if (typeof module === 'object' && module.exports) module.exports = api
  else root.radiumMarkdown = api
})(typeof self !== 'undefined' ? self : this)
