-- Hit stacks in Redis, shared by the scripts that push hits (client-admit.lua, client-flush.lua); LuaScript puts
-- this text ahead of theirs (docs/architecture-cluster.md, "Keys").
-- A stack is one string of little-endian 32-bit numbers: a header, then KEEP slots of (epoch second s, the weighted
-- hits of s) in slot s % KEEP. A slot holding another second than the one its place stands for is stale: it counts
-- nothing, so nothing is ever zeroed. The header carries the window's total forward: the last second written L,
-- the hits in the WINDOW seconds up to L, the oldest of those seconds with hits (0: none), and the second the
-- stack's expiry was last set. A push reads the stack with one GET, moves the total on by the seconds that left
-- the window since L (one for a client seen every second) and writes it back, its slot and header changed, with one
-- SET (KEEPTTL, or a new expiry every REFRESH s): summing the whole window in Lua on every push cost more than the
-- Redis commands, and two SETRANGEs and an EXPIRE more than one SET (docs/BENCHMARKS.md, issue 29).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local second = math.floor(now / 1000)
-- The last 60 s whatever the window (a window is at most 60 s), as the local store keeps.
local KEEP = 60
local HEADER = '<I4I4I4I4I4'
local HEADER_BYTES = 20
local SLOT_BYTES = 8
-- A stack's string is always this long (so a string of another length at a stack's key is not a stack).
local STACK_BYTES = HEADER_BYTES + KEEP * SLOT_BYTES
-- The expiry is set again at most every REFRESH s, so a stack outlives its newest hit by at least KEEP + 1 s.
local REFRESH = 10
local TTL_S = KEEP + 1 + REFRESH

-- The stack's string, or nil when there is none.
local function readStack(key)
  return redis.call('GET', key) or nil
end

-- The byte (from 1) where second s's slot starts.
local function slotAt(s)
  return HEADER_BYTES + (s % KEEP) * SLOT_BYTES + 1
end

-- The hits of second s (within the last KEEP seconds); 0 when its slot holds another second.
local function hitsAt(packed, s)
  local tagged, hits = struct.unpack('<I4I4', packed, slotAt(s))
  if tagged == s then
    return hits
  end
  return 0
end

-- The oldest second from first to last with hits, or 0.
local function oldestFrom(packed, first, last)
  for s = first, last do
    if hitsAt(packed, s) > 0 then
      return s
    end
  end
  return 0
end

-- The stack's window of `window` seconds ending now: its hits and the oldest second with hits (0: none). The
-- header's total is moved on when it is for the same window, else the window is summed afresh (a policy edit, or a
-- stack only flushed to so far).
local function windowOf(packed, window)
  if not packed then
    return 0, 0
  end
  local last, total, counted, oldest = struct.unpack(HEADER, packed, 1)
  local first = second - window + 1
  if counted ~= window or last > second then
    total = 0
    for s = first, second do
      total = total + hitsAt(packed, s)
    end
    return total, oldestFrom(packed, first, second)
  end
  if last < first then
    return 0, 0
  end
  for s = last - window + 1, first - 1 do
    total = total - hitsAt(packed, s)
  end
  if oldest ~= 0 and oldest < first then
    oldest = oldestFrom(packed, first, last)
  end
  return total, oldest
end

-- Adds weight to this second's slot of the stack (packed: as read, or nil for none), whose window of `window`
-- seconds (0: not known) held total hits with the oldest at second oldest before, and saves it.
local function addHits(key, packed, weight, window, total, oldest)
  if oldest == 0 then
    oldest = second
  end
  local header = struct.pack(HEADER, second, total + weight, window, oldest, second)
  if not packed then
    local slot = slotAt(second)
    redis.call('SET', key, header .. string.rep('\0', slot - HEADER_BYTES - 1) .. struct.pack('<I4I4', second, weight)
        .. string.rep('\0', STACK_BYTES - slot - SLOT_BYTES + 1), 'EX', TTL_S)
    return
  end
  local expirySet = struct.unpack('<I4', packed, 17)
  local refresh = second - expirySet >= REFRESH
  if not refresh then
    header = struct.pack(HEADER, second, total + weight, window, oldest, expirySet)
  end
  local slot = slotAt(second)
  local stack = header .. string.sub(packed, HEADER_BYTES + 1, slot - 1)
      .. struct.pack('<I4I4', second, hitsAt(packed, second) + weight) .. string.sub(packed, slot + SLOT_BYTES)
  if refresh then
    redis.call('SET', key, stack, 'EX', TTL_S)
  else
    redis.call('SET', key, stack, 'KEEPTTL')
  end
end

-- Adds weight to a stack whose window is not known here (hits counted on a node, flushed): the window its header
-- counts is moved on to now and kept. packed: the stack as read, or nil for none.
local function addHitsKeepingWindowTo(key, packed, weight)
  local window = 0
  if packed then
    window = struct.unpack('<I4', packed, 9)
  end
  if window == 0 then
    addHits(key, packed, weight, 0, 0, 0)
    return
  end
  local total, oldest = windowOf(packed, window)
  addHits(key, packed, weight, window, total, oldest)
end

local function addHitsKeepingWindow(key, weight)
  addHitsKeepingWindowTo(key, readStack(key), weight)
end
