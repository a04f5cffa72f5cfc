-- wrk script for our move endpoint: POST /api/games/<id>/<action> with the game's own token.
-- usage: wrk -s bench/http/move.lua URL -- <flag|reveal> <moves file> <wrk threads>
-- The moves file (written by bench/http/run.py) holds one "<game id> <token> <x> <y>" a line.
--   flag:   a random line per request; the cells are mines, so the flag toggles forever.
--   reveal: each thread walks its own stride of the file once (thread k: lines k+1, k+1+t, ...),
--           so every reveal opens one fresh numbered cell (no cascade, never a mine).
local counter = 0
function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
end

local action, moves, n, i, step
function init(args)
  action = args[1]
  moves = {}
  for line in io.lines(args[2]) do
    local g, tok, x, y = line:match("^(%S+) (%S+) (%d+) (%d+)")
    if g then
      moves[#moves + 1] = {
        "/api/games/" .. g .. "/" .. action,
        { ["Authorization"] = "Token " .. tok, ["Content-Type"] = "application/json" },
        '{"x":' .. x .. ',"y":' .. y .. "}",
      }
    end
  end
  n = #moves
  step = tonumber(args[3] or "1")
  i = (tid or 0) + 1
  math.randomseed(os.time() * 1000 + (tid or 0))
end

function request()
  local m
  if action == "flag" then
    m = moves[math.random(1, n)]
  else
    m = moves[i]
    i = i + step
    if i > n then -- the runner sizes the file so this does not happen; wrap rather than fail
      i = ((i - 1) % n) + 1
    end
  end
  return wrk.format("POST", m[1], m[2], m[3])
end
