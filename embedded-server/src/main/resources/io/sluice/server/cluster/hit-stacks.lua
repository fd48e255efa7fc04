-- Hit stacks in Redis, shared by the scripts that push hits (client-admit.lua, client-flush.lua); LuaScript puts
-- this text ahead of theirs (docs/architecture-cluster.md, "Keys").
-- A stack is one string of KEEP + 1 little-endian 32-bit numbers: the weighted hits of epoch second s in slot
-- s % KEEP, and in the last slot the second last written. A slot still holding a second a minute old or more is
-- zeroed when the stack is next written. One GET and one SET of about 244 bytes per push: a hash of one field per
-- second made Redis build and hand Lua two strings per field on every read (docs/BENCHMARKS.md, issue 12).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local second = math.floor(now / 1000)
-- The last 60 s whatever the window (a window is at most 60 s), as the local store keeps.
local KEEP = 60
local STACK = '<' .. string.rep('I4', KEEP + 1)
-- A stack outlives its newest second's hits.
local STACK_MS = (KEEP + 1) * 1000

-- The stack's slots (a table of KEEP + 1 numbers), or nil when there is none.
local function readStack(key)
  local packed = redis.call('GET', key)
  if not packed then
    return nil
  end
  local slots = {struct.unpack(STACK, packed)}
  slots[KEEP + 2] = nil -- struct.unpack's next position
  return slots
end

-- Adds weight to this second's slot, zeroing the slots of the seconds passed since the last write, and saves it.
local function addHits(key, slots, weight)
  if not slots then
    slots = {}
    for i = 1, KEEP + 1 do
      slots[i] = 0
    end
  end
  local last = slots[KEEP + 1]
  if second > last then
    for s = math.max(last + 1, second - KEEP + 1), second do
      slots[s % KEEP + 1] = 0
    end
    slots[KEEP + 1] = second
  end
  slots[second % KEEP + 1] = slots[second % KEEP + 1] + weight
  redis.call('SET', key, struct.pack(STACK, unpack(slots, 1, KEEP + 1)), 'PX', STACK_MS)
  return slots
end

-- The hits of second s (s within the last minute) in slots.
local function hitsAt(slots, s)
  if not slots or s > slots[KEEP + 1] or s <= slots[KEEP + 1] - KEEP then
    return 0
  end
  return slots[s % KEEP + 1]
end

