-- The request vectors shared by every door (tests/vectors/requests.txt),
-- through the Lua door.

local h = ...
local check, test = h.check, h.test
local radium = h.radium
local repo = h.repo

test("the shared request vectors", function()
  local e = radium.new()
  local lines = vim.fn.readfile(repo .. "/tests/vectors/requests.txt")
  check(#lines >= 60, "vectors found")
  for i = 1, #lines, 2 do
    local got = e:request(vim.json.decode(lines[i]))
    local want = vim.json.decode(lines[i + 1])
    check(vim.deep_equal(got, want), "vector " .. lines[i] .. "\n got " .. vim.inspect(got))
  end
end)
