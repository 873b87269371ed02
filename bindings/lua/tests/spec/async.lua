-- Native (script) hooks mixed with Lua hooks, and execute_async: the main
-- loop keeps running during a slow hook; deadlines, several chains in flight,
-- errors in callbacks.

local h = ...
local check, eq, test = h.check, h.eq, h.test
local radium = h.radium
local tracer = h.tracer

test("Lua hooks mixed with native (script) hooks", function()
  local e = radium.new()
  e:register("lua-first", "before_tool", tracer("lua-first"), { priority = 300 })
  e:register_script("script", "before_tool", {
    "sh", "-c", [[cat > /dev/null; echo '{"action":"modify","data":{"trace":["lua-first","script"]}}']],
  }, { priority = 200 })
  e:register("lua-last", "before_tool", tracer("lua-last"), { priority = 100 })
  e:register_script("guard", "after_tool", { "sh", "-c", "echo 'frozen' >&2; exit 2" })
  local out = e:execute("before_tool", {})
  eq(out.data.trace, { "lua-first", "script", "lua-last" }, "blocking execute runs all three in order")
  local stop = e:execute("after_tool", {})
  eq(stop.stopped_by, { hook = "guard", reason = "frozen" }, "script stop")
end)

test("execute_async keeps the main loop running while a slow hook runs", function()
  local e = radium.new()
  local main_thread_ok = true
  e:register("lua-before", "before_tool", function(ctx)
    -- Runs on the main loop, outside a fast event: the API is usable.
    main_thread_ok = main_thread_ok and not vim.in_fast_event() and vim.api.nvim_get_current_buf() ~= nil
    return tracer("lua-before")(ctx)
  end, { priority = 300 })
  e:register_script("slow", "before_tool", {
    "sh", "-c", [[sleep 0.4; echo '{"data":{"trace":["lua-before","slow"]}}']],
  }, { priority = 200 })
  e:register("lua-after", "before_tool", function(ctx)
    main_thread_ok = main_thread_ok and not vim.in_fast_event()
    return tracer("lua-after")(ctx)
  end, { priority = 100 })

  local ticks, outcome = 0, nil
  local timer = vim.uv.new_timer()
  timer:start(20, 20, vim.schedule_wrap(function() ticks = ticks + 1 end))
  local t0 = vim.uv.hrtime()
  e:execute_async("before_tool", { tool_name = "x" }, function(o) outcome = o end)
  local returned_ms = (vim.uv.hrtime() - t0) / 1e6
  -- Blocking, it would have waited for the 400 ms hook.
  check(returned_ms < 300, "execute_async returned at once (" .. returned_ms .. " ms)")
  eq(outcome, nil, "the callback has not run yet")
  eq(radium.pending(), 1, "one chain in flight")
  vim.wait(5000, function() return outcome ~= nil end, 10)
  local ms = (vim.uv.hrtime() - t0) / 1e6
  timer:stop()
  timer:close()
  check(outcome ~= nil, "the callback ran")
  eq(outcome and outcome.data.trace, { "lua-before", "slow", "lua-after" }, "chained through the slow hook")
  h.ticked(ticks, ms, 20, "while the chain was in flight")
  check(main_thread_ok, "Lua hooks ran on the main loop")
  eq(radium.pending(), 0, "nothing left in flight")
end)

test("execute_async: deadlines, several chains, callback errors", function()
  local e = radium.new()
  e:register_script("slow", "after_tool", { "sh", "-c", "sleep 5" })
  local out
  local t0 = vim.uv.hrtime()
  e:execute_async("after_tool", {}, function(o) out = o end, { timeout_ms = 150 })
  vim.wait(3000, function() return out ~= nil end, 10)
  eq(out and out.status, "deadline_exceeded", "deadline")
  check((vim.uv.hrtime() - t0) / 1e6 < 2000, "ended promptly")

  local results = {}
  for i = 1, 5 do
    e:execute_async("before_model", { i = i }, function(o) results[#results + 1] = o.data.i end)
  end
  vim.wait(2000, function() return #results == 5 end, 10)
  table.sort(results)
  eq(results, { 1, 2, 3, 4, 5 }, "five chains")

  -- An error in a callback is reported by Neovim's scheduler, and the other
  -- callbacks still run.
  local errors = {}
  local notify = vim.notify
  local other
  e:execute_async("before_model", {}, function() error("callback broke") end)
  e:execute_async("before_model", {}, function() other = true end)
  local ok, err = pcall(vim.wait, 1000, function() return other end, 10)
  vim.notify = notify
  check(other == true, "the other callback ran")
  check(ok or tostring(err):find("callback broke", 1, true), "callback error surfaced: " .. tostring(err))
  _ = errors
end)
