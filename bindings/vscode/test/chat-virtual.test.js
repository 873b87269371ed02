'use strict'
// The chat view's virtualizer (media/virtual.js) on a small tree of nodes
// standing in for the page (the real page: bench/render.js and the e2e
// suite's step 11): a finished part far from the view is emptied to a box of
// its height, its nodes kept aside and put back in order when it comes near;
// its text stays reachable (the answer's whole text, the view's find, a
// copy of a selection over it); parts that left the page are forgotten.

const { test } = require('node:test')
const assert = require('node:assert/strict')

const { create } = require('../media/virtual.js')

/** A node of the stand-in page: text (type 3), element or fragment. */
class Node {
  constructor (type, value = '') {
    Object.assign(this, { nodeType: type, nodeValue: value, children: [], parentNode: null, style: {}, scrolled: 0 })
    this.classes = new Set()
    this.classList = { add: (c) => this.classes.add(c), remove: (c) => this.classes.delete(c) }
  }

  get ownerDocument () { return doc }
  get firstChild () { return this.children[0] || null }
  get lastChild () { return this.children.at(-1) || null }
  get nextSibling () { const s = this.parentNode?.children; return s ? s[s.indexOf(this) + 1] || null : null }
  get previousSibling () { const s = this.parentNode?.children; return s ? s[s.indexOf(this) - 1] || null : null }
  get isConnected () { return this === page || (!!this.parentNode && this.parentNode.isConnected) }
  get textContent () { return this.nodeType === 3 ? this.nodeValue : this.children.map((c) => c.textContent).join('') }
  appendChild (n) {
    const from = n.nodeType === 11 ? [...n.children] : [n]
    for (const c of from) {
      if (c.parentNode) c.parentNode.children.splice(c.parentNode.children.indexOf(c), 1)
      c.parentNode = this
      this.children.push(c)
    }
    return n
  }

  remove () { if (this.parentNode) { this.parentNode.children.splice(this.parentNode.children.indexOf(this), 1); this.parentNode = null } }
  scrollIntoView () { this.scrolled++ }
}
const doc = { createDocumentFragment: () => new Node(11) }
const page = new Node(1)
const element = (...texts) => { const e = new Node(1); for (const t of texts) e.appendChild(new Node(3, t)); return e }

/** A log with an answer of `n` parts, and the virtualizer with its observer in the test's hands. */
function setup (n = 3) {
  page.children = []
  const log = page.appendChild(new Node(1))
  const answer = log.appendChild(new Node(1))
  const parts = Array.from({ length: n }, (_, i) => answer.appendChild(element(`part ${i} `, `more ${i}. `)))
  const observed = new Set()
  let report
  const v = create(log, {
    observe: (cb) => {
      report = (entries) => cb(entries.map(([target, isIntersecting, height = 100]) => ({ target, isIntersecting, boundingClientRect: { height } })))
      return { observe: (e) => observed.add(e), unobserve: (e) => observed.delete(e) }
    },
  })
  for (const p of parts) v.watch(p)
  return { log, answer, parts, v, observed, report: (...entries) => report(entries) }
}

test('a part far from the view is an empty box of its height, and comes back whole and in order when near', () => {
  const { answer, parts, v, observed, report } = setup()
  assert.equal(observed.size, 3)
  const whole = answer.textContent
  report([parts[0], false, 240], [parts[1], true])
  assert.equal(parts[0].children.length, 0)
  assert.equal(parts[0].style.height, '240px')
  assert.ok(parts[0].classes.has('detached'))
  assert.ok(v.detached(parts[0]) && !v.detached(parts[1]))
  assert.equal(v.count, 1)
  assert.equal(answer.textContent, whole.replace('part 0 more 0. ', ''), 'the page holds the rest only')
  assert.equal(v.text(answer), whole, 'the answer\'s whole text, the detached part\'s included')
  report([parts[0], true])
  assert.equal(parts[0].textContent, 'part 0 more 0. ')
  assert.equal(parts[0].style.height, '')
  assert.ok(!parts[0].classes.has('detached'))
  assert.equal(answer.textContent, whole)
  assert.equal(v.count, 0)
})

test('a part never laid out (no height) or already empty is not detached', () => {
  const { parts, v, report } = setup()
  report([parts[0], false, 0])
  parts[1].children = []
  report([parts[1], false, 50])
  assert.equal(v.count, 0)
  assert.equal(parts[0].textContent, 'part 0 more 0. ')
})

test('the view\'s find reaches a detached part: put back and scrolled to; from the end with `last`; a text nowhere is not found', () => {
  const { parts, v, report } = setup()
  report([parts[0], false], [parts[1], false], [parts[2], false])
  assert.equal(v.count, 3)
  assert.equal(v.reveal('more 1.'), true)
  assert.ok(!v.detached(parts[1]) && parts[1].scrolled === 1)
  assert.ok(v.detached(parts[0]) && v.detached(parts[2]), 'only the part found is put back')
  assert.equal(v.reveal('more'), true, 'the first from the top: part 0')
  assert.ok(!v.detached(parts[0]) && parts[0].scrolled === 1)
  assert.equal(v.reveal('more', true), true, 'from the end: part 2')
  assert.ok(!v.detached(parts[2]) && parts[2].scrolled === 1)
  assert.equal(v.reveal('part 1'), true, 'a part on the page: scrolled to')
  assert.equal(parts[1].scrolled, 2)
  assert.equal(v.reveal('not in the chat'), false)
  assert.equal(v.reveal('not in the chat', true), false)
})

test('a copy puts back the parts its selection spans, only those', () => {
  const { parts, v, report } = setup()
  report([parts[0], false], [parts[1], false], [parts[2], false])
  v.attachIn({ intersectsNode: (n) => n !== parts[2] })
  assert.ok(!v.detached(parts[0]) && !v.detached(parts[1]) && v.detached(parts[2]))
  assert.equal(parts[1].textContent, 'part 1 more 1. ')
})

test('a part that left the page is forgotten, not detached; clear forgets every part', () => {
  const { parts, v, observed, report } = setup()
  parts[0].remove()
  report([parts[0], false])
  assert.equal(v.count, 0)
  assert.ok(!observed.has(parts[0]))
  assert.equal(parts[0].textContent, 'part 0 more 0. ')
  v.watch(parts[1])
  assert.equal(observed.size, 2, 'watched once')
  v.watch(null)
  report([parts[1], false])
  v.clear()
  assert.equal(observed.size, 0)
  assert.equal(v.count, 0)
})
