//! Hook contexts on tapes: `call_hook` puts a context on a tape once per
//! revision, and numbers its shape so the codec can use a copier compiled
//! for it.

use radium_core::HookContext;

use super::codec::{codec, CODEC_REFS};
use super::encode::Tape;
use super::names::COMMON;
use super::{ARRAY, NUMBER, OBJECT, STRING};
use crate::js::{Js, JsResult, Raw};

/// Calls the JS hook `function` with `context` as its `ctx` (a new object
/// each call). The context is put on a tape once per revision: the next
/// hook of the chain reuses the tape and the text the codec still holds.
pub(crate) fn call_hook(js: Js, function: Raw, context: &HookContext) -> JsResult<Raw> {
    let revision = context.revision();
    if CODEC_REFS.with_borrow(|c| c.env == js.env() && c.context == Some(revision)) {
        let invoke = js.reference_value(codec(js)?.invoke)?;
        let undefined = js.undefined()?;
        let value = js.call(
            invoke,
            undefined,
            &[function, undefined, undefined, undefined, js.boolean(true)?],
        );
        if value.is_err() {
            // The hook threw (or the copy failed): decode afresh next time.
            CODEC_REFS.with_borrow_mut(|c| c.context = None);
        }
        return value;
    }
    let mut tape = Tape::new(js)?;
    tape.object(3);
    tape.key("hook_type");
    tape.string(context.hook_type.as_str());
    tape.key("data");
    tape.value(&context.data)?;
    tape.key("metadata");
    tape.value(&context.metadata)?;
    let shape = CODEC_REFS.with_borrow_mut(|c| {
        let committed = COMMON.len() + c.keys.len();
        let Some(structure) = shape_of(&tape.ops, committed) else {
            return 0;
        };
        if let Some(&id) = c.shapes.get(&structure) {
            return id;
        }
        if c.shapes.len() >= MAX_SHAPES {
            c.shapes.clear();
        }
        c.next_shape += 1;
        c.shapes.insert(structure, c.next_shape);
        c.next_shape
    });
    tape.send(js, Some((function, revision, shape)))
}

/// Shapes remembered per environment (then they start over).
const MAX_SHAPES: usize = 1024;

/// The shape of the value on a tape: the tape without its strings' and
/// numbers' contents (the object keys stay, by number). `None` when a key
/// travels as text. `known`: how many names the codec knew before the tape.
fn shape_of(ops: &[f64], known: usize) -> Option<Vec<u64>> {
    fn value(ops: &[f64], at: &mut usize, known: &mut usize, out: &mut Vec<u64>) -> Option<()> {
        let op = *ops.get(*at)?;
        *at += 1;
        out.push(op.to_bits());
        if op == NUMBER || op == STRING {
            *at += 1;
        } else if op == ARRAY || op == OBJECT {
            let n = *ops.get(*at)?;
            *at += 1;
            out.push(n.to_bits());
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            for _ in 0..(n as usize) {
                if op == OBJECT {
                    let k = *ops.get(*at)?;
                    *at += 1;
                    if k >= 0.0 {
                        return None;
                    }
                    out.push(k.to_bits());
                    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                    let index = (-k - 1.0) as usize;
                    if index >= *known {
                        // A name sent for the first time: its text length follows.
                        *at += 1;
                        *known += 1;
                    }
                }
                value(ops, at, known, out)?;
            }
        }
        Some(())
    }
    let mut out = Vec::with_capacity(ops.len());
    let mut at = 0;
    let mut known = known;
    value(ops, &mut at, &mut known, &mut out)?;
    (at == ops.len()).then_some(out)
}
