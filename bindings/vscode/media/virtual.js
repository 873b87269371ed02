'use strict'
// Keeps the chat view's page small however long the transcript grows: a
// finished part of an answer (a chunk of finished blocks, a group of pieces
// of a long line) that goes more than a few screens away from the view is
// detached, its nodes kept aside and the element left as an empty box of
// the height it had (nothing moves); it is put back when it comes within
// those screens again. The browser then styles, lays out and paints a few
// screens of the answer, not all of it. What the page no longer holds stays
// reachable: `text` answers an element's whole text, `reveal` finds a text
// in all of it (put back and scrolled to), and a copy puts back what the
// selection spans first, so it copies all of it.
// Loaded by the webview (window.radiumVirtual) and by node --test.
;(function (root) {
  /**
   * A virtualizer for the scrolling element `log`: `margin`, how many of
   * its heights around the view stay attached (default 2).
   * `observe(fn)` makes the watcher (an IntersectionObserver in the page).
   */
  function create (log, { margin = 2, observe } = {}) {
    const aside = new Map() // element -> DocumentFragment of its nodes
    const watched = new Set()
    const detach = (e, height) => {
      if (aside.has(e) || !e.isConnected || !e.firstChild) return
      const doc = e.ownerDocument
      const keep = doc.createDocumentFragment()
      while (e.firstChild) keep.appendChild(e.firstChild)
      aside.set(e, keep)
      e.style.height = `${height}px`
      e.classList.add('detached')
    }
    const attach = (e) => {
      const keep = aside.get(e)
      if (!keep) return
      aside.delete(e)
      e.appendChild(keep)
      e.style.height = ''
      e.classList.remove('detached')
    }
    const watcher = (observe || ((cb) => new IntersectionObserver(cb, { root: log, rootMargin: `${margin * 100}% 0px` })))((entries) => {
      for (const entry of entries) {
        const e = entry.target
        if (!e.isConnected) { forget(e); continue }
        if (entry.isIntersecting) attach(e)
        else if (entry.boundingClientRect.height > 0) detach(e, entry.boundingClientRect.height)
      }
    })
    function forget (e) {
      watcher.unobserve(e)
      watched.delete(e)
      aside.delete(e)
    }
    return {
      /** Watches a finished element: it is detached while far from the view. */
      watch (e) {
        if (!e || watched.has(e)) return
        watched.add(e)
        watcher.observe(e)
      },
      /** Whether `e` is detached now. */
      detached: (e) => aside.has(e),
      /** How many elements are detached now. */
      get count () { return aside.size },
      /** The whole text of `e` (an answer), its detached parts included. */
      text (e) {
        let out = ''
        const walk = (n) => {
          if (n.nodeType === 3) { out += n.nodeValue; return }
          const keep = aside.get(n)
          for (let c = (keep || n).firstChild; c; c = c.nextSibling) walk(c)
        }
        walk(e)
        return out
      },
      /**
       * Finds `needle` in the log's text, detached parts included, from the
       * top (or the bottom with `last`): puts the element holding it back
       * and scrolls it into view. Answers whether it was found.
       */
      reveal (needle, last = false) {
        // In document order (from the end with `last`): a detached element
        // is searched in the nodes kept aside, an attached one node by node.
        const hit = (n) => {
          if (n.nodeType === 3) return n.nodeValue.includes(needle) ? n.parentNode : null
          const keep = aside.get(n)
          if (keep) return keep.textContent.includes(needle) ? n : null
          for (let c = last ? n.lastChild : n.firstChild; c; c = last ? c.previousSibling : c.nextSibling) {
            const found = hit(c)
            if (found) return found
          }
          return null
        }
        const e = hit(log)
        if (!e) return false
        attach(e)
        e.scrollIntoView({ block: 'center' })
        return true
      },
      /** Puts back every detached element the selection `range` spans (before a copy). */
      attachIn (range) {
        for (const e of [...aside.keys()]) if (range.intersectsNode(e)) attach(e)
      },
      /** Forgets every element (the log was cleared). */
      clear () { for (const e of [...watched]) forget(e) },
    }
  }

  const api = { create }
  if (typeof module === 'object' && module.exports) module.exports = api
  else root.radiumVirtual = api
})(typeof self !== 'undefined' ? self : this)
