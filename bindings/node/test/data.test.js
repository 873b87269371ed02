'use strict'
// Data conversion between JS and the engine: data in is exactly
// JSON.parse(JSON.stringify(data)), what JSON refuses is refused, the bulk
// codec, and every hook of a chain gets its own exact copy of the context.

const { test } = require('node:test')
const assert = require('node:assert/strict')

const { radium, throwsCode } = require('./helpers')
const { Engine } = radium

test('data conversion follows JSON.stringify / JSON.parse', () => {
  const e = new Engine()
  const seen = []
  e.register('t-echo', 'custom_logging', (ctx) => { seen.push(ctx.data) })
  const echo = (data) => e.execute('custom_logging', data).data
  assert.equal(echo(undefined), null)
  assert.equal(echo(null), null)
  assert.equal(echo(true), true)
  assert.equal(echo('text'), 'text')
  assert.equal(echo(3.5), 3.5)
  assert.equal(echo(NaN), null)
  assert.equal(echo(2 ** 53 - 1), 2 ** 53 - 1)
  assert.equal(echo(-(2 ** 53) + 1), -(2 ** 53) + 1)
  assert.equal(echo(1e300), 1e300)
  assert.deepEqual(echo([1, undefined, () => {}, 'x']), [1, null, null, 'x'])
  assert.deepEqual(echo({ a: undefined, f() {}, b: [] }), { b: [] })
  const date = new Date(0)
  assert.equal(echo(date), '1970-01-01T00:00:00.000Z')
  assert.deepEqual(echo(new Map([[1, 2]])), {})
  const text = 'ünïcödé ✓ 𝄞 "quoted" \\ \u0000 end'
  assert.equal(echo(text), text)
  // A `__proto__` key is a plain property, as JSON.parse makes it.
  const parsed = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}')
  const back = echo(parsed)
  assert.equal(Object.getPrototypeOf(back), Object.prototype)
  assert.deepEqual(Object.keys(back), ['__proto__', 'ok'])
  assert.equal({}.polluted, undefined)
  // Object keys come back sorted (the engine's JSON objects are ordered by key).
  assert.deepEqual(Object.keys(echo({ b: 1, a: 2 })), ['a', 'b'])
  // Each hook gets its own copy.
  seen.length = 0
  e.execute('custom_logging', { n: 1 })
  e.execute('custom_logging', { n: 1 })
  assert.notEqual(seen[0], seen[1])
  // Deep nesting beyond the limit every door shares (127 levels) is an error, not a crash.
  let deep = 0
  for (let i = 0; i < 200; i++) deep = [deep]
  throwsCode(() => e.execute('custom_logging', deep), 'invalid_argument', 'JSON nested deeper than 127 levels is refused')
})

test('data in is exactly JSON.parse(JSON.stringify(data))', () => {
  const e = new Engine()
  const echo = (data) => e.execute('custom_logging', data).data
  class Point { constructor() { this.x = 1; this.y = 2 } }
  class WithJSON { toJSON(key) { return { key, from: 'toJSON' } } }
  const args = (function () { return arguments })(1, 'two')
  const hidden = Object.defineProperty({ shown: 1 }, 'hidden', { value: 2, enumerable: false })
  const inherited = Object.create({ inheritedKey: 1 })
  inherited.own = 2
  const holes = [1, , 3] // eslint-disable-line no-sparse-arrays
  const getter = { get computed() { return 'yes' } }
  const samples = [
    0, -0, 1, -1, 0.1, 1.5e-7, 2 ** 53, 2 ** 53 + 2, 2 ** 63, 2 ** 64, 1e19, 1e20, 1e21, -(2 ** 63), -(2 ** 63) - 4096,
    Number.MAX_VALUE, Number.MIN_VALUE, Infinity, -Infinity, NaN,
    '', 'ascii', 'é', '\ufffd', '\n\t"\\', 'x'.repeat(100000),
    [], {}, [[[]]], { a: { b: { c: [1, { d: null }] } } },
    { 2: 'b', 1: 'a', z: 'z', 10: 'ten' }, holes, [undefined, () => {}, Symbol('s')],
    { u: undefined, f() {}, [Symbol('k')]: 1, kept: true },
    Object.create(null), Object.assign(Object.create(null), { n: 1 }),
    new Point(), new WithJSON(), { nested: new WithJSON() }, { toJSON: 5, v: 1 },
    new Date(86400000), /re/g, new Map([[1, 2]]), new Set([1]), new Uint8Array([1, 2]), new Error('e'),
    new Number(3), new String('s'), new Boolean(false), args, hidden, inherited, getter,
    { date: new Date(0), list: [new Date(1)] },
  ]
  for (const sample of samples) {
    assert.deepEqual(echo(sample), JSON.parse(JSON.stringify(sample)), `for sample ${samples.indexOf(sample)}`)
  }
  // What JSON.stringify refuses, or escapes and JSON refuses, is refused.
  throwsCode(() => echo('\ud800'), 'invalid_argument', 'a string holds a lone UTF-16 surrogate')
  throwsCode(() => echo({ k: 'a\udc00b' }), 'invalid_argument', 'lone UTF-16 surrogate')
  throwsCode(() => echo({ get boom() { throw new Error('getter threw') } }), 'invalid_argument', 'getter threw')
  throwsCode(() => echo([1, [2, 3n]]), 'invalid_argument', 'BigInt')
  let cyclic = []
  cyclic.push({ back: cyclic })
  throwsCode(() => echo(cyclic), 'invalid_argument', 'circular')
})

test('the bulk codec: names met once or many times, long and non-ASCII names and texts', () => {
  const e = new Engine()
  const seen = []
  e.register('t-a', 'custom_logging', (ctx) => { seen.push(ctx) })
  e.register('t-b', 'custom_logging', (ctx) => { seen.push(ctx) })
  const echo = (data) => e.execute('custom_logging', data).data
  // More distinct names than the codec remembers (4096), twice over: the
  // later ones travel as text, and every one comes back right.
  const wide = {}
  for (let i = 0; i < 5000; i++) wide[`key-${i}`] = i
  assert.deepEqual(echo(wide), JSON.parse(JSON.stringify(wide)))
  assert.deepEqual(echo(wide), JSON.parse(JSON.stringify(wide)))
  const mixed = {
    ['long-' + 'n'.repeat(100)]: 'a name longer than the remembered ones',
    'ключ 🔑': 'значение 𝄞 with a surrogate pair',
    nested: [{ 'ключ 🔑': 1, same: { same: { same: 'same' } } }, { same: 2 }],
    text: 'é'.repeat(5000) + 'x'.repeat(5000),
  }
  for (let i = 0; i < 3; i++) assert.deepEqual(echo(mixed), mixed)
  // Every hook of a chain gets an equal, separate copy of the same data.
  seen.length = 0
  e.execute('custom_logging', mixed)
  assert.equal(seen.length, 2)
  assert.notEqual(seen[0].data, seen[1].data)
  assert.deepEqual(seen[0].data, mixed)
  assert.deepEqual(seen[1].data, mixed)
  assert.deepEqual(Object.keys(seen[0]), ['hook_type', 'data', 'metadata'])
  // A hook that changes its copy changes nothing for the next one.
  const e2 = new Engine()
  let second
  e2.register('t-first', 'custom_logging', (ctx) => { ctx.data.x = 'changed' }, { priority: 2 })
  e2.register('t-second', 'custom_logging', (ctx) => { second = ctx.data.x }, { priority: 1 })
  assert.equal(e2.execute('custom_logging', { x: 'original' }).data.x, 'original')
  assert.equal(second, 'original')
  // A hook that runs another chain (with names never seen before) in the
  // middle of its own: the next hook still gets the outer chain's data.
  const e3 = new Engine()
  const contexts = []
  e3.register('t-reenter', 'custom_logging', (ctx) => {
    contexts.push(ctx.data)
    const inner = e3.execute('telemetry_collection', { [`fresh-${Math.random()}`]: ['never', 'seen'], x: ctx.data.x })
    assert.equal(inner.data.x, 'outer')
  }, { priority: 3 })
  e3.register('t-after', 'custom_logging', (ctx) => { contexts.push(ctx.data) }, { priority: 2 })
  e3.register('t-inner', 'telemetry_collection', (ctx) => { contexts.push(ctx.data) })
  for (let i = 0; i < 3; i++) {
    contexts.length = 0
    const data = { x: 'outer', [`new-${i}`]: { deep: [i, `é${i}`] } }
    e3.execute('custom_logging', data)
    assert.equal(contexts.length, 3)
    assert.deepEqual(contexts[0], data)
    assert.equal(contexts[1].x, 'outer')
    assert.deepEqual(contexts[2], data, 'the second outer hook after the inner chain')
  }
})

test('every hook of a chain gets its own exact copy of the context, whatever its shape', () => {
  const e = new Engine()
  const seen = []
  for (let i = 0; i < 3; i++) {
    e.register(`t-copy-${i}`, 'custom_logging', (ctx) => {
      // What this hook got, before it changes its copy every way there is:
      // the next hook must not see any of it.
      seen.push({ data: ctx.data, json: JSON.stringify(ctx.data), keys: typeof ctx.data === 'object' ? Object.keys(ctx.data) : null })
      if (typeof ctx.data !== 'object' || ctx.data === null) return
      ctx.data.added = i
      if (Array.isArray(ctx.data.list)) ctx.data.list.push('more')
      if (ctx.data.nested) ctx.data.nested.deeper = null
      if (Array.isArray(ctx.data)) ctx.data[1].push('more')
    }, { priority: 10 - i })
  }
  let deep = { end: true }
  for (let i = 0; i < 80; i++) deep = { level: i, deep }
  const samples = [
    { list: [1, { a: [2, { b: 'c' }] }, 'x'], nested: { deeper: { deepest: [] } } },
    { 2: 'b', 1: 'a', 10: 'ten', z: 'z', 'key "quoted"': 'q', 'line\nbreak': 'n', 'ключ 🔑': 'u', '': 'empty' },
    JSON.parse('{"__proto__": {"polluted": true}, "ok": [{"__proto__": 1}]}'),
    deep,
    { list: [], nested: {} },
    [1, [2, [3]], { a: null }],
    'a plain string',
  ]
  for (const sample of samples) {
    for (let round = 0; round < 2; round++) {
      seen.length = 0
      const out = e.execute('custom_logging', sample)
      const want = JSON.stringify(out.data) // the engine's own answer (keys in its order)
      assert.deepEqual(JSON.parse(want), JSON.parse(JSON.stringify(sample)))
      assert.equal(seen.length, 3)
      for (const [i, got] of seen.entries()) {
        assert.equal(got.json, want, `sample ${samples.indexOf(sample)}, hook ${i}`)
        if (got.keys) assert.deepEqual(got.keys, Object.keys(out.data))
      }
      if (typeof sample === 'object') {
        assert.notEqual(seen[0].data, seen[1].data)
        assert.notEqual(seen[1].data, seen[2].data)
      }
      assert.equal({}.polluted, undefined)
    }
  }
})
