-- The crawl governor's state of one domain for the whole cluster, and every change to it, as one atomic
-- step on Redis's clock: the same rules as the engine's DomainState, Pacer and CircuitBreaker (read those
-- for the why), so a domain is paced, floored, cut, broken and given up once for all nodes.
-- KEYS[1] the domain's hash. Times are microseconds of Redis's TIME; -1 means "never".
-- ARGV[1] 'permit' | 'permit-any' | 'report' | 'change'
-- ARGV[2..15] the policy: initialRate minRate maxRate increasePerSecond decreaseFactor slowStartDoublingSeconds
--   backoffBaseMillis backoffMaxMillis backoffForgiveSeconds breakerErrorPercent breakerMinCalls
--   breakerOpenSeconds breakerTrialRequests giveUpAfterErrors
-- ARGV[16] the asking node's floor (its minimum delays), micros   ARGV[17] '1' if the node has it given up
-- ARGV[18] jitter in [0, 1)   ARGV[19] how long an idle domain is remembered, ms
-- ARGV[20] now in micros, or '' for Redis's TIME (the one clock every node shares; a test passes its own)
-- report: ARGV[21] status  ARGV[22] error '1'/'0'  ARGV[23] slow-down as the node read it '1'/'0'
--   ARGV[24] Retry-After seconds or ''  ARGV[25] latency signal '1'/'0'  ARGV[26] Crawl-delay micros or ''
-- change: ARGV[21] 'RATE' | 'MIN_DELAY' | 'RESET' | 'REVIVE'   ARGV[22] the rate or the delay (micros)
-- permit-any: KEYS[1..n] the domains asked about; ARGV[16] and ARGV[17] unused; ARGV[20 + i] the node's floor
--   for KEYS[i], ARGV[20 + n + i] '1' if the node has KEYS[i] given up. Grants the domain whose next slot
--   came (or comes) first, or the next ready if that one refuses (CrawlGovernor.acquireAny), and answers as a
--   permit for it plus its index (0-based).
-- ARGV[#ARGV - 1], after all of the above: the worker who asks or reports (its token's name), '' for a trusted
--   in-process caller: the turns and credits of DomainWorkers (read it for the why).
-- ARGV[#ARGV]: the admission marks, one character per key, '1' where the caller has just had
--   the domain counted in the cluster's table of domains (governor-domains.lua), so its hash may be made here. A key
--   with no hash and no mark makes nothing: the call changes nothing and answers 'unknown' and the 0-based indices
--   of those keys, and the caller has them counted (or refused: the table is full) and calls again.
-- Returns, as strings: granted, waitMicros, reason, rate, interval, blockedFor, blockReason, breaker,
--   breakerOpenFor, backoffLevel, consecutiveErrors, givenUp, gaveUpNow, slowStart, calls60s, errors60s, credited
--   (a report: '0' when its worker held no grant to report on, and nothing changed) (permit-any: then the index granted), then pairs of a key's 0-based index and the time (micros) until which the
--   table of domains must count it: its count would end before its hash expires (the caller extends it).
local SECOND = 1000000
local BUCKETS = 60
local op = ARGV[1]
local now
if ARGV[20] ~= '' then
  now = tonumber(ARGV[20])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * SECOND + tonumber(t[2])
end

local initialRate, minRate, maxRate = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local increasePerSecond, decreaseFactor, doubling = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local backoffBase, backoffMax, forgive = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local errorPercent, minCalls = tonumber(ARGV[11]), tonumber(ARGV[12])
local openSeconds, trials, giveUpAfter = tonumber(ARGV[13]), tonumber(ARGV[14]), tonumber(ARGV[15])
local jitter, idle = tonumber(ARGV[18]), tonumber(ARGV[19])
local admitted = ARGV[#ARGV]
local worker = ARGV[#ARGV - 1]
local trusted = worker == ''
-- DomainWorkers: MAX_WORKERS, CREDITS, CREDIT_MICROS, ACTIVE_MICROS, MAX_GRACE_MICROS
local MAX_WORKERS, CREDITS = 16, 64
local CREDIT_MICROS, ACTIVE_MICROS, MAX_GRACE = 600 * SECOND, 120 * SECOND, 250000
-- A count is extended to its hash's expiry and a quarter of the idle time beyond, so at most once a quarter hour
-- for a domain in use; a hash just made counts until a little less than its admission made it count.
local countBeyond, countAtFirst = math.floor(idle * 250), math.floor(idle * 1125)
local refresh = {}

local function clamp(r)
  return math.max(minRate, math.min(maxRate, r))
end

local names = {'rate', 'tat', 'ss', 'sig', 'inc', 'cut', 'dem', 'lg', 'gap', 'blk', 'why', 'lvl', 'boe', 'errs',
  'gu', 'srv', 'md', 'cd', 'bst', 'bou', 'btg', 'bts', 'blt', 'hss', 'rf', 'rx', 'tq', 'wk', 'tb'}
-- The domain the functions below work on: its key and index, the asking node's floor and given-up mark, its state,
-- and whether it has no hash yet (and may not have one made: not counted in the table of domains).
local key, index, floor, givenUpHere, s, fresh, uncounted

local function interval()
  return math.max(math.ceil(SECOND / s.rate), s.md, s.cd, floor)
end

-- Pacer.respace: the next slot moves with the interval, so a cut holds from the very next grant. It is the
-- time the last grant is spaced from ('tb': the grant, or for a turn the slot before it) plus the interval now,
-- never before the last grant plus the minimum delays (not the old slot moved by the change of interval: the
-- asking node's floor already holds a delay it sets with this call, so the interval "before" would already be the
-- new one).
local function respace()
  if s.tat ~= -1 and s.lg ~= -1 then
    local from = s.tb
    if from == -1 then from = s.lg end
    s.tat = math.max(from + interval(), s.lg + math.max(s.md, s.cd, floor))
  end
end

local function setRate(r)
  s.rate = r
  respace()
end

-- The turn list ('tq': names, comma-separated, the head first) and the workers ('wk': name:credits:lastGrant:
-- lastSeen:errorsInTheRun, comma-separated, least recently seen first). A token's name has neither ',' nor ':'.
local function parseTurns(text)
  local list = {}
  if text and text ~= '' then
    for name in string.gmatch(text, '[^,]+') do list[#list + 1] = name end
  end
  return list
end

local function parseWorkers(text)
  local list = {}
  if text and text ~= '' then
    for name, c, g, seen, e in string.gmatch(text, '([^:,]*):(%-?%d+):(%-?%d+):(%-?%d+):(%d+)') do
      list[#list + 1] = {name = name, credits = tonumber(c), lg = tonumber(g), seen = tonumber(seen),
        errs = tonumber(e)}
    end
  end
  return list
end

local function load(keyIndex, nodeFloor, nodeGivenUp)
  key, index, floor, givenUpHere = KEYS[keyIndex], keyIndex, nodeFloor, nodeGivenUp
  local raw = redis.call('HMGET', key, unpack(names))
  local function n(i, default)
    if raw[i] then return tonumber(raw[i]) end
    return default
  end
  fresh = not raw[1]
  uncounted = fresh and string.sub(admitted, keyIndex, keyIndex) ~= '1'
  local rxAtFirst = -1
  if fresh then rxAtFirst = now + countAtFirst end
  s = {
    rate = n(1, initialRate), tat = n(2, -1), ss = raw[3] ~= '0', sig = n(4, -1), inc = n(5, -1),
    cut = n(6, -1), dem = n(7, -1), lg = n(8, -1), gap = n(9, 0), blk = n(10, -1), why = raw[11] or '',
    lvl = n(12, 0), boe = n(13, -1), errs = n(14, 0), gu = raw[15] == '1' or (fresh and givenUpHere),
    srv = raw[16] == '1', md = n(17, 0), cd = n(18, 0), bst = raw[19] or 'CLOSED', bou = n(20, 0),
    btg = n(21, 0), bts = n(22, 0), blt = n(23, 0), hss = raw[24] ~= '0', rf = raw[25] == '1',
    rx = n(26, rxAtFirst), tq = parseTurns(raw[27]), wk = parseWorkers(raw[28]), tb = n(29, -1)
  }
  -- After a live edit of the bounds, the rate inside them, and the next slot with it (DomainState.clamp).
  if clamp(s.rate) ~= s.rate then setRate(clamp(s.rate)) end
end

local function flag(b)
  if b then return '1' end
  return '0'
end
local function int(x)
  return string.format('%d', x)
end

local function joinWorkers()
  local parts = {}
  for _, w in ipairs(s.wk) do
    parts[#parts + 1] = w.name .. ':' .. int(w.credits) .. ':' .. int(w.lg) .. ':' .. int(w.seen) .. ':' .. int(w.errs)
  end
  return table.concat(parts, ',')
end

-- DomainWorkers.seen: the asking worker, seen now (made if new; the least recently seen forgotten past the most).
local function seenWorker()
  local w
  for i, x in ipairs(s.wk) do
    if x.name == worker then
      w = table.remove(s.wk, i)
      break
    end
  end
  if not w then w = {name = worker, credits = 0, lg = -1, seen = now, errs = 0} end
  w.seen = now
  s.wk[#s.wk + 1] = w
  if #s.wk > MAX_WORKERS then table.remove(s.wk, 1) end
  return w
end

-- DomainWorkers.holdFor: 0 when the worker may take the slot that opened at opensAt, else the wait until the grace of
-- the worker whose turn it is ends.
local function holdFor(opensAt, iv)
  if trusted or #s.tq == 0 or opensAt == -1 or now < opensAt or s.tq[1] == worker then return 0 end
  local ends = opensAt + math.min(math.floor(iv / 4), MAX_GRACE)
  if now < ends then return ends - now end
  return 0
end

local function heldTurn()
  return not trusted and #s.tq > 1 and s.tq[1] == worker
end

-- DomainWorkers.refused: the worker waits its turn.
local function refused()
  seenWorker()
  if trusted or #s.tq >= MAX_WORKERS then return end
  for _, name in ipairs(s.tq) do
    if name == worker then return end
  end
  s.tq[#s.tq + 1] = worker
end

-- DomainWorkers.granted: a credit, and the worker leaves the turn list (a head that missed its turn too).
local function grantedTo()
  local w = seenWorker()
  if w.lg == -1 or now - w.lg > CREDIT_MICROS then w.credits = 0 end
  w.credits = math.min(CREDITS, w.credits + 1)
  w.lg = now
  if trusted or #s.tq == 0 then return end
  if s.tq[1] ~= worker then table.remove(s.tq, 1) end
  for i, name in ipairs(s.tq) do
    if name == worker then
      table.remove(s.tq, i)
      break
    end
  end
end

-- DomainWorkers.spend: a report counts only for a grant its worker was given.
local function spend()
  if trusted then
    seenWorker()
    return true
  end
  for _, w in ipairs(s.wk) do
    if w.name == worker then
      if w.credits <= 0 or now - w.lg > CREDIT_MICROS then return false end
      w.credits = w.credits - 1
      w.seen = now
      return true
    end
  end
  return false
end

local function workersHealthy()
  for _, w in ipairs(s.wk) do w.errs = 0 end
end

-- DomainWorkers.erred: true when every worker active on the domain has reported its share of the errors in a row.
local function erred()
  local w = seenWorker()
  w.errs = w.errs + 1
  local active = 0
  for _, x in ipairs(s.wk) do
    if now - x.seen <= ACTIVE_MICROS then active = active + 1 end
  end
  active = math.max(1, active)
  local share = math.floor((giveUpAfter + active - 1) / active)
  for _, x in ipairs(s.wk) do
    if now - x.seen <= ACTIVE_MICROS and x.errs < share then return false end
  end
  return true
end

local function blockedSince(time)
  return s.blk > time or (s.bst ~= 'CLOSED' and s.bou > time)
end

-- The breaker's 60 one-second buckets: fields s<i> (its second), c<i> (calls), e<i> (errors).
local function bucketFields()
  local fields = {}
  for i = 0, BUCKETS - 1 do
    fields[#fields + 1] = 's' .. i
    fields[#fields + 1] = 'c' .. i
    fields[#fields + 1] = 'e' .. i
  end
  return fields
end

local function sums()
  local second = math.floor(now / SECOND)
  local values = redis.call('HMGET', key, unpack(bucketFields()))
  local calls, errors = 0, 0
  for i = 0, BUCKETS - 1 do
    local at = tonumber(values[3 * i + 1] or '-1')
    if at >= 0 and second - at < BUCKETS and at <= second then
      calls = calls + tonumber(values[3 * i + 2] or '0')
      errors = errors + tonumber(values[3 * i + 3] or '0')
    end
  end
  return calls, errors
end

local function closeBreaker()
  s.bst = 'CLOSED'
  redis.call('HDEL', key, unpack(bucketFields()))
end

local function openBreaker()
  s.bst = 'OPEN'
  s.bou = now + openSeconds * SECOND
end

-- CircuitBreaker.wilsonLowerBound: "enough calls to judge" at 95% confidence.
local function tooManyErrors()
  local calls, errors = sums()
  if calls < minCalls then
    return false
  end
  local z = 1.96
  local p = errors / calls
  local z2n = z * z / calls
  local centre = p + z2n / 2
  local spread = z * math.sqrt(p * (1 - p) / calls + z2n / (4.0 * calls))
  return (centre - spread) / (1 + z2n) > errorPercent / 100.0
end

local function record(isError)
  local second = math.floor(now / SECOND)
  local slot = second % BUCKETS
  local b = redis.call('HMGET', key, 's' .. slot, 'c' .. slot, 'e' .. slot)
  local calls, errors = 0, 0
  if tonumber(b[1] or '-1') == second then
    calls, errors = tonumber(b[2] or '0'), tonumber(b[3] or '0')
  end
  calls = calls + 1
  if isError then errors = errors + 1 end
  redis.call('HSET', key, 's' .. slot, string.format('%d', second), 'c' .. slot, calls, 'e' .. slot, errors)
  if s.bst == 'HALF_OPEN' then
    if isError then
      openBreaker()
    else
      s.bts = s.bts + 1
      if s.bts >= trials then closeBreaker() end
    end
  elseif s.bst == 'CLOSED' and isError and tooManyErrors() then
    openBreaker()
  end
end

-- CircuitBreaker.admit: 0 when a request may go (a half-open breaker counts a trial), else micros to wait.
local function admit()
  if s.bst == 'OPEN' then
    if now < s.bou then return s.bou - now end
    s.bst = 'HALF_OPEN'
    s.btg = 0
    s.bts = 0
  end
  if s.bst == 'HALF_OPEN' then
    local timeout = openSeconds * SECOND
    if s.btg >= trials then
      if now - s.blt < timeout then return s.blt + timeout - now end
      s.btg = s.bts
    end
    s.btg = s.btg + 1
    s.blt = now
  end
  return 0
end

local function busy()
  if s.dem == -1 or now - s.dem > math.max(2 * SECOND, 2 * interval()) then
    return false
  end
  local gap = 0
  if s.lg ~= -1 then
    if blockedSince(s.lg) then gap = s.gap else gap = math.max(s.gap, now - s.lg) end
  end
  return gap <= 1.5 * interval()
end

local function increase()
  if busy() and s.inc ~= -1 then
    local seconds = math.min(now - s.inc, SECOND) / SECOND
    if not s.ss and s.sig ~= -1 and s.rate > s.sig * 1.25 then
      s.ss = true
    end
    local nextRate
    if s.ss and doubling > 0 then
      nextRate = s.rate * 2 ^ (seconds / doubling)
    else
      -- DomainState.MAX_RISE_PER_REQUEST: at most 0.5% of the rate per request it lets through
      local perSecond = math.min(increasePerSecond, 0.005 * s.rate * s.rate)
      -- DomainState.additivePerSecond: after a slow-down's cut, fast back to 95% of the rate it came from
      -- (RECOVER_TO, RECOVERY_SPEED), slow above it (PROBE_SPEED)
      if s.rf and s.sig ~= -1 then
        if s.rate < 0.95 * s.sig then perSecond = 4 * perSecond else perSecond = 0.2 * perSecond end
      end
      nextRate = s.rate + perSecond * seconds
    end
    setRate(clamp(nextRate))
  end
  s.inc = now
end

-- One cut per round trip for the whole cluster: a slow-down within max(1 s, 2 intervals) of the last cut,
-- heard by any node, is an answer to a request already in flight at that cut.
local function cutCooldown()
  return math.max(SECOND, 2 * interval())
end

-- DomainState.absorbedByCut: the first slow-down since a healthy answer, or an answer to a request in flight
-- at the last cut (within its round trip, before a backoff begun with it has ended), is AIMD's to answer.
local function absorbedByCut()
  if s.hss then return true end
  local inFlightAtCut = s.cut ~= -1 and now - s.cut < cutCooldown()
  local blockSinceCutOver = s.boe ~= -1 and s.boe >= s.cut and now >= s.boe
  return inFlightAtCut and not blockSinceCutOver
end

local function decrease()
  s.ss = false
  if s.cut == -1 or now - s.cut >= cutCooldown() then
    local from = s.rate
    if s.lg ~= -1 and s.gap > 0 then
      from = math.min(s.rate, SECOND / s.gap)
    end
    s.sig = from
    setRate(clamp(from * decreaseFactor))
    s.cut = now
  end
  s.inc = now
end

local function backOff()
  if now < s.blk then
    return -- an answer to a request sent before the block: the same incident
  end
  if s.boe ~= -1 and now - s.boe <= forgive * SECOND then s.lvl = s.lvl + 1 else s.lvl = 0 end
  local full = math.min(backoffBase * 2 ^ math.min(s.lvl, 30), backoffMax) * 1000
  local half = math.floor(full / 2)
  s.blk = now + half + math.floor(jitter * (half + 1))
  s.why = 'BACKOFF'
  s.boe = s.blk
end

local granted, wait, reason, gaveUpNow, calls, errors, credited = false, 0, '', false, -1, -1, true
local chosen = nil

-- The permit of the domain loaded: takes its next slot if it is open now.
local function permit()
  local function deny(micros, why)
    s.dem = now
    wait, reason = micros, why
    refused()
  end
  if s.gu then
    reason = 'GIVEN_UP'
  elseif now < s.blk then
    deny(s.blk - now, s.why)
  else
    local trial, held = false, 0
    if s.bst ~= 'CLOSED' then
      held = admit()
      trial = s.bst == 'HALF_OPEN'
    end
    if held > 0 then
      deny(held, 'BREAKER_OPEN')
    else
      local iv = interval()
      -- Another worker's turn: the slot is kept for it a little (DomainWorkers, "Turns").
      local hold = holdFor(math.max(s.tat, s.blk), iv)
      if hold <= 0 and s.tat > now then hold = s.tat - now end
      if hold > 0 then
        if trial and s.btg > 0 then s.btg = s.btg - 1 end
        deny(hold, 'PACING')
      else
        if s.tat == -1 or now - s.tat < iv then s.dem = now end
        if heldTurn() and s.blk <= s.tat and s.tat ~= -1 and now - s.tat < iv then
          -- Pacer.tryAcquireTurn: a turn others waited through is spaced from its slot, never closer than the floors.
          s.tb = s.tat
          s.tat = math.max(s.tat + iv, now + math.max(s.md, s.cd, floor))
        else
          s.tb = now
          s.tat = now + iv
        end
        if s.lg ~= -1 and not blockedSince(s.lg) then
          s.gap = s.gap + 0.25 * (now - s.lg - s.gap)
        end
        s.lg = now
        grantedTo()
        granted = true
      end
    end
  end
  if s.bst ~= 'CLOSED' then
    calls, errors = sums() -- a broken domain is rare; its counts are what an operator looks at
  end
end

-- When the domain loaded could be granted next: its next slot, or the end of its block or open breaker.
local function readyAt()
  local at = s.tat
  if s.blk > at then at = s.blk end
  if s.bst == 'OPEN' and s.bou > at then at = s.bou end
  return at
end

-- Writes the domain loaded back.
local function save()
  redis.call('HSET', key, 'rate', string.format('%.17g', s.rate), 'tat', int(s.tat), 'ss', flag(s.ss),
    'sig', string.format('%.17g', s.sig), 'inc', int(s.inc), 'cut', int(s.cut), 'dem', int(s.dem),
    'lg', int(s.lg), 'gap', string.format('%.17g', s.gap), 'blk', int(s.blk), 'why', s.why, 'lvl', int(s.lvl),
    'boe', int(s.boe), 'errs', int(s.errs), 'gu', flag(s.gu), 'srv', flag(s.srv), 'md', int(s.md),
    'cd', int(s.cd), 'bst', s.bst, 'bou', int(s.bou), 'btg', int(s.btg), 'bts', int(s.bts), 'blt', int(s.blt),
    'hss', flag(s.hss), 'rf', flag(s.rf), 'tq', table.concat(s.tq, ','), 'wk', joinWorkers(), 'tb', int(s.tb))
  -- Forgotten after an idle spell, never while a floor or backoff holds (a node that has it given up, or an
  -- operator's delay, puts those back through ARGV[16] and ARGV[17]).
  local keep = idle
  if s.blk > now then keep = keep + math.ceil((s.blk - now) / 1000) end
  redis.call('PEXPIRE', key, keep)
  -- The table of domains counts it at least as long as the hash lives (a hash from before the table: from now on).
  local expires = now + keep * 1000
  if s.rx < expires then
    s.rx = expires + countBeyond
    refresh[#refresh + 1] = int(index - 1)
    refresh[#refresh + 1] = int(s.rx)
  end
  redis.call('HSET', key, 'rx', int(s.rx))
end

local function unknownReply(indices)
  local out = {'unknown'}
  for _, i in ipairs(indices) do out[#out + 1] = int(i - 1) end
  return out
end

if op == 'permit' then
  load(1, tonumber(ARGV[16]), ARGV[17] == '1')
  if uncounted then return unknownReply({1}) end
  permit()
elseif op == 'permit-any' then
  local count = #KEYS
  local function loadAt(i)
    load(i, tonumber(ARGV[20 + i]), ARGV[20 + count + i] == '1')
  end
  -- CrawlGovernor.anyOf: the domains in the order their slots came (or come); a tie keeps the order asked
  -- about, so grants go round the domains; given up last.
  local order, at, unknown = {}, {}, {}
  for i = 1, count do
    loadAt(i)
    if uncounted then unknown[#unknown + 1] = i end
    if s.gu then at[i] = math.huge else at[i] = readyAt() end
    local j = #order + 1
    while j > 1 and at[order[j - 1]] > at[i] do j = j - 1 end
    table.insert(order, j, i)
  end
  if #unknown > 0 then return unknownReply(unknown) end
  -- The first is asked; one that says no (a half-open breaker with no trial left) passes the permit on to the
  -- next that is ready now. Refused by all, the answer is the first's.
  local answer, tried = nil, {}
  for _, i in ipairs(order) do
    if answer and at[i] > now then break end
    loadAt(i)
    granted, wait, reason, calls, errors = false, 0, '', -1, -1
    permit()
    save()
    tried[i] = true
    if not answer or granted then answer = {i, granted, wait, reason, calls, errors} end
    if granted then break end
  end
  -- The others were asked about and not granted: workers want them, as after a refused permit.
  for i = 1, count do
    if not tried[i] and at[i] ~= math.huge and redis.call('EXISTS', KEYS[i]) == 1 then
      redis.call('HSET', KEYS[i], 'dem', int(now))
    end
  end
  loadAt(answer[1])
  granted, wait, reason, calls, errors = answer[2], answer[3], answer[4], answer[5], answer[6]
  chosen = answer[1] - 1
elseif op == 'report' then
  load(1, tonumber(ARGV[16]), ARGV[17] == '1')
  -- Ignored without a grant to its worker to report on: nothing changes, nothing is saved or made.
  credited = spend()
  if credited and uncounted then return unknownReply({1}) end
  if credited then
    local status = tonumber(ARGV[21])
    local isError = ARGV[22] == '1'
    local slowDown = ARGV[23] == '1' or (status == 403 and s.srv)
    if ARGV[26] ~= '' then
      s.cd = tonumber(ARGV[26])
      respace()
    end
    if status >= 200 and status < 400 then s.srv = true end
    local incident = slowDown and not absorbedByCut()
    record(isError or incident)
    if ARGV[24] ~= '' then
      local untilTime = now + tonumber(ARGV[24]) * SECOND
      if untilTime > s.blk then
        s.blk = untilTime
        s.why = 'RETRY_AFTER'
      end
    elseif incident then
      backOff()
    end
    if slowDown then
      s.hss = false
      s.rf = true
      decrease()
    elseif not isError then
      s.errs = 0
      workersHealthy()
      s.hss = true
      if s.lvl > 0 and now >= s.blk then s.lvl = s.lvl - 1 end
      if ARGV[25] == '1' then
        s.rf = false
        decrease()
      else
        increase()
      end
    end
    if isError then
      s.errs = s.errs + 1
      -- Credible only when every worker active on the domain has seen its share of the errors (DomainWorkers).
      local corroborated = erred()
      if s.errs >= giveUpAfter and corroborated and not s.gu then
        s.gu = true
        gaveUpNow = true
      end
    end
    calls, errors = sums()
  end
elseif op == 'change' then
  load(1, tonumber(ARGV[16]), ARGV[17] == '1')
  if uncounted then return unknownReply({1}) end
  local kind, value = ARGV[21], tonumber(ARGV[22])
  if kind == 'RATE' then
    s.ss = false
    s.sig = value
    setRate(value)
  elseif kind == 'MIN_DELAY' then
    s.md = value
    respace()
  elseif kind == 'RESET' then
    s.blk, s.why, s.lvl, s.boe, s.inc, s.cut, s.hss, s.rf = -1, '', 0, -1, -1, -1, true, false
    s.ss, s.sig, s.srv, s.cd, s.errs, s.tat, s.lg, s.gap = true, -1, false, 0, 0, -1, -1, 0
    s.tq, s.tb = {}, -1
    workersHealthy()
    closeBreaker()
    s.rate = initialRate
  elseif kind == 'REVIVE' then
    s.gu = false
    s.errs = 0
    s.tq = {}
    workersHealthy()
    closeBreaker()
  else
    return redis.error_reply('unknown change ' .. tostring(kind))
  end
  calls, errors = sums()
else
  return redis.error_reply('unknown operation ' .. tostring(op))
end

if credited then save() end

local blockedFor, openFor = 0, 0
if s.blk > now then blockedFor = s.blk - now end
if s.bst == 'OPEN' and s.bou > now then openFor = s.bou - now end
local shownBreaker = s.bst
if s.bst == 'OPEN' and now >= s.bou then shownBreaker = 'HALF_OPEN' end
local out = {flag(granted), int(wait), reason, string.format('%.17g', s.rate), int(interval()), int(blockedFor),
  s.why, shownBreaker, int(openFor), int(s.lvl), int(s.errs), flag(s.gu), flag(gaveUpNow), flag(s.ss),
  int(calls), int(errors), flag(credited)}
if chosen then out[#out + 1] = int(chosen) end
for _, value in ipairs(refresh) do out[#out + 1] = value end
return out
