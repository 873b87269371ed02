-- The ctx each Lua hook of a chain gets: a table of its own, equal to the
-- first hook's (same keys and values, same key order under pairs, vim.NIL
-- and empty objects kept), whatever an earlier hook did to its own table;
-- the data a hook returns with "modify" reaches the next ones; a chain run
-- from inside a hook leaves the outer chain's next ctx as it was.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local radium = h.radium

local big = string.rep("fn compute(values: &[u64]) -> u64 {\n    values.iter().sum()\n}\n", 60)

local function sample()
  return {
    tool_name = "step",
    selection = big,
    empty = vim.empty_dict(),
    none = vim.NIL,
    list = { "a", big, { n = 1, s = "x" }, {} },
    nested = { deep = { deeper = { text = "t", count = 3, flag = true } } },
    [""] = "empty key",
  }
end

-- The keys of `t` in pairs order, and of its tables, as one list.
local function order(t, out)
  out = out or {}
  for k, v in pairs(t) do
    out[#out + 1] = tostring(k)
    if type(v) == "table" then
      order(v, out)
    end
  end
  return out
end

test("each hook gets its own ctx; changing it changes nothing the next hook sees", function()
  local e = radium.new()
  local seen = {}
  for i = 1, 4 do
    e:register("h" .. i, "before_model", function(ctx)
      seen[i] = { ctx = ctx, data = ctx.data, copy = vim.deepcopy(ctx), order = order(ctx) }
      -- Each hook vandalises its own table, nested tables and strings included.
      ctx.data.selection = "changed"
      ctx.data.list[3].n = 99
      ctx.data.list[5] = "added"
      ctx.data.nested.deep = nil
      ctx.data.empty.x = 1
      ctx.data.added = true
      ctx.hook_type = "after_model"
      ctx.metadata = { x = 1 }
      setmetatable(ctx.data, { __index = function() return "meta" end })
    end, { priority = 100 - i })
  end
  local outcome = e:execute("before_model", sample())
  eq(outcome.status, "completed", "status")
  eq(#seen, 4, "every hook ran")
  local first = seen[1].copy
  eq(first.hook_type, "before_model", "hook_type")
  eq(first.data.selection, big, "the long string")
  check(first.data.none == vim.NIL, "vim.NIL")
  eq(first.metadata, vim.NIL, "no metadata is vim.NIL")
  for i = 2, 4 do
    local s = seen[i]
    eq(s.copy, first, "hook " .. i .. " sees what hook 1 saw")
    eq(s.order, seen[1].order, "hook " .. i .. " sees the keys in the same order")
    check(s.ctx ~= seen[i - 1].ctx and s.data ~= seen[i - 1].data, "hook " .. i .. " gets new tables")
    check(s.data.list[3] ~= seen[i - 1].data.list[3], "hook " .. i .. " gets new nested tables")
    check(getmetatable(s.copy.data.empty) == getmetatable(vim.empty_dict()), "hook " .. i .. ": an empty object keeps vim.empty_dict()'s metatable")
    check(getmetatable(s.copy.data.list[4]) == nil, "hook " .. i .. ": an empty array has no metatable")
  end
  eq(outcome.data.selection, big, "the chain's data is not what the hooks did to their tables")
  eq(outcome.data.list[3].n, 1, "nested data unchanged")
end)

test("a hook's modify reaches the next hooks, each with its own table", function()
  local e = radium.new()
  local seen = {}
  e:register("first", "before_model", function(ctx)
    seen[1] = ctx.data.selection
  end, { priority = 40 })
  e:register("modify", "before_model", function(ctx)
    local data = vim.deepcopy(ctx.data)
    data.selection = ctx.data.selection .. "!"
    data.round = 2
    return { action = "modify", data = data }
  end, { priority = 30 })
  e:register("after-1", "before_model", function(ctx)
    seen[2] = { ctx.data.selection, ctx.data.round }
    ctx.data.round = 3
  end, { priority = 20 })
  e:register("after-2", "before_model", function(ctx)
    seen[3] = { ctx.data.selection, ctx.data.round }
  end, { priority = 10 })
  local outcome = e:execute("before_model", sample())
  eq(seen[1], big, "before the change")
  eq(seen[2], { big .. "!", 2 }, "the first hook after the change")
  eq(seen[3], { big .. "!", 2 }, "the next one: the change, not the earlier hook's edit of its table")
  eq(outcome.data.round, 2, "the outcome")
end)

test("a chain run inside a hook leaves the outer chain's next ctx as it was", function()
  local e = radium.new()
  local inner = radium.new()
  local seen = {}
  inner:register("inner", "after_tool", function(ctx)
    seen.inner = ctx.data.text
  end)
  e:register("outer-1", "before_model", function(ctx)
    seen[1] = vim.deepcopy(ctx.data)
    eq(inner:execute("after_tool", { text = "inner " .. big }).status, "completed", "inner chain")
    -- The same engine too, with other data.
    e:execute("before_tool", { tool_name = "other", selection = "x" })
  end, { priority = 20 })
  e:register("outer-2", "before_model", function(ctx)
    seen[2] = vim.deepcopy(ctx.data)
  end, { priority = 10 })
  e:execute("before_model", sample())
  eq(seen.inner, "inner " .. big, "the inner hook's data")
  eq(seen[2], seen[1], "the outer chain's second hook sees the outer data")
  eq(seen[2].selection, big, "the long string")
end)

test("the same data in two chains, and a hook that raises", function()
  local e = radium.new()
  local seen = {}
  e:register("boom", "before_model", function(ctx)
    ctx.data.selection = nil
    error("boom")
  end, { priority = 20 })
  e:register("after", "before_model", function(ctx)
    seen[#seen + 1] = ctx.data.selection
  end, { priority = 10 })
  for _ = 1, 2 do
    local outcome = e:execute("before_model", sample())
    eq(outcome.hooks[1].status, "error", "the raising hook failed")
  end
  eq(seen, { big, big }, "the next hook sees the data, in both chains")
end)

test("the same through execute_async, two chains at once", function()
  local e = radium.new()
  local seen = {}
  for i = 1, 3 do
    e:register("a" .. i, "before_model", function(ctx)
      seen[#seen + 1] = { ctx.data.id, ctx.data.selection }
      ctx.data.selection = "changed"
    end, { priority = 10 - i })
  end
  local done = 0
  for id = 1, 2 do
    local data = sample()
    data.id = id
    data.selection = big .. id
    e:execute_async("before_model", data, function(outcome)
      eq(outcome.status, "completed", "chain " .. id)
      done = done + 1
    end)
  end
  vim.wait(5000, function() return done == 2 end, 10)
  eq(done, 2, "both chains called back")
  eq(#seen, 6, "every hook ran")
  for _, s in ipairs(seen) do
    eq(s[2], big .. s[1], "chain " .. tostring(s[1]) .. "'s hooks see its own data")
  end
end)
