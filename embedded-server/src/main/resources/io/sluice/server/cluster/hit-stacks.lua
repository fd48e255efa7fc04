-- Hit stacks in Redis, shared by the scripts that push hits (client-admit.lua, client-flush.lua); LuaScript puts
-- this text ahead of theirs, after locals.lua (docs/architecture-cluster.md, "Keys"). What a push answers (measure,
-- push) is the engine's HitRing's arithmetic: both are held to one table of golden cases (the engine's
-- hit-stack-cases.json; the server's HitStackGoldenCasesTest runs them here).
-- A stack is one string of little-endian 32-bit numbers: a header, then KEEP slots of (epoch second s, the weighted
-- hits of s) in slot s % KEEP. A slot holding another second than the one its place stands for is stale: it counts
-- nothing, so nothing is ever zeroed. The header holds the last second written L and L's hits (L's slot is written
-- only when a later second comes), the window's total carried forward (the window W it counts, the hits in the W
-- seconds up to L, the oldest of those seconds with hits, 0: none), the second the stack's expiry was last set, and
-- two seconds a client's admission keeps there to save itself a command (client-admit.lua, address-stacks.lua): when
-- it last found or made its address's marker naming it (0: not known), and when it last pushed its lease set's
-- expiry on (0: not known); both 0 in any other stack.
-- So a push in the second its stack last saw (most of a busy client's) reads and writes the header alone, one
-- GETRANGE and one SETRANGE of 32 bytes; only a push whose window loses its oldest second with hits, or must find
-- when hits leave it, reads the slots (one GET). Every byte a script reads or writes becomes a Lua string that
-- Redis hashes whole: a push that read and rewrote the whole stack spent more in Lua than in its commands
-- (docs/BENCHMARKS.md, issue 29).
-- Redis's clock, ms and s, read once per call by the main of a script that pushes hits (readClock).
local now, second
local function readClock()
  local t = call('TIME')
  now = tonumber(t[1]) * 1000 + floor(tonumber(t[2]) / 1000)
  second = floor(now / 1000)
end
-- The last 60 s whatever the window: the longest window a policy may set, as the engine's ring keeps
-- (Policy.HitStack.MAX_WINDOW_SECONDS; HitStackGoldenCasesTest checks this against it).
local KEEP = 60
local HEADER = '<I4I4I4I4I4I4I4I4'
local HEADER_BYTES = 32
-- Where the header's two fields for a client's admission start (from 0): the second it found its address's marker
-- naming it, the second it pushed its lease set's expiry on.
local ALONE_AT = 24
local LEASES_PUSHED_AT = 28
local SLOT = '<I4I4'
local SLOT_BYTES = 8
-- A stack's string is always this long (so a string of another length at a stack's key is not a stack).
local STACK_BYTES = HEADER_BYTES + KEEP * SLOT_BYTES
-- The expiry is set again at most every REFRESH s, so a stack outlives its newest hit by at least KEEP + 1 s.
local REFRESH = 10
local TTL_S = KEEP + 1 + REFRESH
-- Numbers sent to Redis as strings made once: a number passed to redis.call is formatted in floating point.
local HEADER_END = tostring(HEADER_BYTES - 1)
local TTL_TEXT = tostring(TTL_S)

-- A stack as read: its key and header's numbers (last nil: no stack; alone and leasesPushed 0), and its whole string
-- once a figure needed its slots (packed). A client's admission may set alone before the push that writes the header.
local function stackFrom(key, header, packed)
  if #header < HEADER_BYTES then
    return {key = key, alone = 0, leasesPushed = 0}
  end
  local last, hitsLast, window, total, oldest, expirySet, alone, leasesPushed = structUnpack(HEADER, header, 1)
  return {key = key, last = last, hitsLast = hitsLast, window = window, total = total, oldest = oldest,
    expirySet = expirySet, alone = alone, leasesPushed = leasesPushed, packed = packed}
end

-- The stack at key, its header read.
local function openStack(key)
  return stackFrom(key, call('GETRANGE', key, '0', HEADER_END), nil)
end

-- The stack whose whole string is packed (nil: none), as read at key.
local function stackOf(key, packed)
  return stackFrom(key, packed or '', packed)
end

-- The byte (from 1) where second s's slot starts.
local function slotAt(s)
  return HEADER_BYTES + (s % KEEP) * SLOT_BYTES + 1
end

-- Writes second s's slot of the stack: s and its hits.
local function writeSlot(stack, s, hits)
  call('SETRANGE', stack.key, slotAt(s) - 1, structPack(SLOT, s, hits))
end

-- Writes one of the header's two seconds for a client's admission (at ALONE_AT or LEASES_PUSHED_AT; 0: not known) in
-- the stack at key, which must be there (SETRANGE on a missing key would make a string that never expires).
local function writeAdmissionSecond(key, at, s)
  call('SETRANGE', key, at, structPack('<I4', s))
end

-- The hits of second s in its slot (0 when the slot holds another second), the slots read when first needed. A
-- push writes only the header and the slot of the second the header held, which the header answers for: slots read
-- after this call's own push still hold every other second as before it.
local function slotHits(stack, s)
  if not stack.packed then
    stack.packed = call('GET', stack.key)
  end
  local tagged, hits = structUnpack(SLOT, stack.packed, slotAt(s))
  if tagged == s then
    return hits
  end
  return 0
end

-- The hits of second s (within the last KEEP seconds) as the stack held them when read.
local function hitsAt(stack, s)
  if not stack.last then
    return 0
  end
  if s == stack.last then
    return stack.hitsLast
  end
  return slotHits(stack, s)
end

-- The oldest second from first to last with hits, or 0.
local function oldestFrom(stack, first, last)
  for s = first, last do
    if hitsAt(stack, s) > 0 then
      return s
    end
  end
  return 0
end

-- The stack's window of `window` seconds ending now: its hits and the oldest second with hits (0: none). The
-- header's total is moved on when it is for the same window, else the window is summed afresh (a policy edit, or a
-- stack only flushed to so far).
local function windowOf(stack, window)
  if not stack.last then
    return 0, 0
  end
  local last = stack.last
  local first = second - window + 1
  if stack.window ~= window or last > second then
    local total = 0
    for s = first, second do
      total = total + hitsAt(stack, s)
    end
    return total, oldestFrom(stack, first, second)
  end
  if last < first then
    return 0, 0
  end
  local total, oldest = stack.total, stack.oldest
  if oldest == 0 or oldest >= first then
    -- no second with hits leaves the window: the slots are not read
    return total, oldest
  end
  -- of the seconds leaving the window, only those from its oldest with hits on can hold any
  for s = oldest, first - 1 do
    total = total - hitsAt(stack, s)
  end
  if total == 0 then
    return 0, 0
  end
  return total, oldestFrom(stack, first, last)
end

-- Adds weight to this second's hits of the stack (as read), whose window of `window` seconds (0: not known) held
-- total hits with the oldest at second oldest before, and saves it.
local function addHits(stack, weight, window, total, oldest)
  if oldest == 0 then
    oldest = second
  end
  if not stack.last then
    call('SET', stack.key, structPack(HEADER, second, weight, window, total + weight, oldest, second,
        stack.alone, 0) .. rep('\0', KEEP * SLOT_BYTES), 'EX', TTL_TEXT)
    return
  end
  if stack.last > second then
    -- Redis's clock went back (a failover to another machine): the hits go in this second's slot, the header keeps
    -- the later second, and its total is summed afresh by the next push (window 0, not known); the seconds a
    -- client's admission keeps are dropped, being later than now
    writeSlot(stack, second, slotHits(stack, second) + weight)
    call('SETRANGE', stack.key, '0', structPack(HEADER, stack.last, stack.hitsLast, 0, 0, 0, stack.expirySet,
        0, 0))
    return
  end
  local hitsNow = weight
  if stack.last == second then
    hitsNow = hitsNow + stack.hitsLast
  else
    writeSlot(stack, stack.last, stack.hitsLast)
  end
  local expirySet = stack.expirySet
  if second - expirySet >= REFRESH then
    call('EXPIRE', stack.key, TTL_TEXT)
    expirySet = second
  end
  call('SETRANGE', stack.key, '0', structPack(HEADER, second, hitsNow, window, total + weight, oldest,
      expirySet, stack.alone, stack.leasesPushed))
end

-- Adds weight to a stack (as read) whose window is not known here (hits counted on a node, flushed): the window its
-- header counts is moved on to now and kept.
local function addHitsKeepingWindow(stack, weight)
  local window = stack.window or 0
  if window == 0 then
    addHits(stack, weight, 0, 0, 0)
    return
  end
  local total, oldest = windowOf(stack, window)
  addHits(stack, weight, window, total, oldest)
end

-- What a stack (as read) holds once weight is pushed on it, over a window of `window` s: hits in the window, ms
-- until fewer than maxHits remain, ms until the oldest leaves; then the window's hits and its oldest second before the
-- push.
local function measure(stack, weight, window, maxHits)
  local total, oldest = windowOf(stack, window)
  local before, oldestBefore = total, oldest
  if weight > 0 then
    total = total + weight
    if oldest == 0 then
      oldest = second
    end
  end
  local below = 0
  if total >= maxHits then
    -- a refusal (or the last hit allowed): when enough of the window's hits have left it
    local remaining = total
    for s = second - window + 1, second do
      if s == second then
        remaining = remaining - weight
      end
      remaining = remaining - hitsAt(stack, s)
      if remaining < maxHits then
        below = max(0, (s + window) * 1000 - now)
        break
      end
    end
  end
  local reset = 0
  if oldest ~= 0 then
    reset = max(0, (oldest + window) * 1000 - now)
  end
  return total, below, reset, before, oldestBefore
end

-- Pushes weight on a hit stack (as read); returns the first three of what measure does.
local function push(stack, weight, window, maxHits)
  local total, below, reset, before, oldestBefore = measure(stack, weight, window, maxHits)
  if weight > 0 then
    addHits(stack, weight, window, before, oldestBefore)
  end
  return total, below, reset
end
