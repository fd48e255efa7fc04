-- Rules 3-5 of a batch of requests, one after the other as if each were sent alone, for every node, atomically, on
-- Redis's clock (docs/architecture-cluster.md, "The shared per-client store"). Hits are pushed first (a refused
-- request counts too); the first refusal wins, in the order of rule 3 (this crawler, any crawler), rule 4 (the
-- client's, the route's, the address's hit stack), rule 5 (the client's, the address's requests in flight); the
-- leases and the crawler's turn are taken only when every rule passed. Runs after hit-stacks.lua.
-- Request i (from 0) of the batch has KEYS[7i + k] and ARGV[13i + k]:
-- KEYS[1] client hits  KEYS[2] route hits  KEYS[3] address hits  (hit stacks, as hit-stacks.lua keeps them)
-- KEYS[4] client leases  KEYS[5] address leases  (sorted sets: lease id scored by its expiry, ms)
-- KEYS[6] this crawler's last service  KEYS[7] any crawler's last service  (ms)
-- ARGV[1] weight  ARGV[2] client window s  ARGV[3] client max hits  ARGV[4] route window s (0: no route limits)
-- ARGV[5] route max hits  ARGV[6] address window s  ARGV[7] address max hits  ARGV[8] client max in flight
-- ARGV[9] address max in flight  ARGV[10] lease id  ARGV[11] lease ms  ARGV[12] this crawler's gap ms (-1: not a
-- crawler)  ARGV[13] any crawler's gap ms
-- Returns, for each request in turn, {verdict, retry ms, client hits in window, ms until its oldest leaves, now ms,
-- crawler's previous service, any crawler's previous service (-1: never)}, flattened; verdict 0 admitted,
-- 1 CRAWLER_SPACING, 2 CRAWLERS_BUSY, 3 HIT_STACK, 4 ROUTE_LIMIT, 5 ADDRESS_HIT_STACK, 6 CLIENT_CONCURRENCY,
-- 7 ADDRESS_CONCURRENCY.
-- A crawler's last service is remembered longer than the longest gap a policy may set (a day).
local CRAWLER_MEMORY = 90000000

-- Pushes weight on a hit stack; returns hits in the window, ms until fewer than max remain, ms until the oldest
-- leaves.
local function push(key, weight, window, max)
  local slots = readStack(key)
  if weight > 0 then
    slots = addHits(key, slots, weight)
  end
  local total = 0
  local oldest = nil
  for s = second - window + 1, second do
    local n = hitsAt(slots, s)
    total = total + n
    if n > 0 and oldest == nil then
      oldest = s
    end
  end
  local below = 0
  if total >= max then
    local remaining = total
    for s = second - window + 1, second do
      remaining = remaining - hitsAt(slots, s)
      if remaining < max then
        below = math.max(0, (s + window) * 1000 - now)
        break
      end
    end
  end
  local reset = 0
  if oldest ~= nil then
    reset = math.max(0, (oldest + window) * 1000 - now)
  end
  return total, below, reset
end

-- One request's rules: its keys from KEYS[k + 1], its arguments from ARGV[a + 1].
local function admit(k, a)
  local weight = tonumber(ARGV[a + 1])
  local hits, below, reset = push(KEYS[k + 1], weight, tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]))
  local routeWindow = tonumber(ARGV[a + 4])
  local routeHits, routeBelow = 0, 0
  if routeWindow > 0 then
    routeHits, routeBelow = push(KEYS[k + 2], math.max(1, weight), routeWindow, tonumber(ARGV[a + 5]))
  end
  local addressHits, addressBelow = push(KEYS[k + 3], weight, tonumber(ARGV[a + 6]), tonumber(ARGV[a + 7]))
  local function refuse(verdict, retry)
    return {verdict, retry, hits, reset, now, -1, -1}
  end

  -- 3. crawler spacing
  local crawlerGap = tonumber(ARGV[a + 12])
  local previous, previousAny = -1, -1
  if crawlerGap >= 0 then
    local last = redis.call('GET', KEYS[k + 6])
    if last then
      previous = tonumber(last)
      if now - previous < crawlerGap then
        return refuse(1, previous + crawlerGap - now)
      end
    end
    local any = redis.call('GET', KEYS[k + 7])
    local anyGap = tonumber(ARGV[a + 13])
    if any then
      previousAny = tonumber(any)
      if now - previousAny < anyGap then
        return refuse(2, previousAny + anyGap - now)
      end
    end
  end
  -- 4. hit stacks
  if hits > tonumber(ARGV[a + 3]) then
    return refuse(3, below)
  end
  if routeWindow > 0 and routeHits > tonumber(ARGV[a + 5]) then
    return refuse(4, routeBelow)
  end
  if addressHits > tonumber(ARGV[a + 7]) then
    return refuse(5, addressBelow)
  end
  -- 5. requests in flight: a lease that expired (its node died with the request running) no longer counts; it goes
  -- with its key, which lives a lease's time after the last lease taken (no lease outlives that: each expires at most
  -- a lease's time after it was taken or renewed)
  local live = '(' .. now
  if redis.call('ZCOUNT', KEYS[k + 4], live, '+inf') >= tonumber(ARGV[a + 8]) then
    return refuse(6, 0)
  end
  if redis.call('ZCOUNT', KEYS[k + 5], live, '+inf') >= tonumber(ARGV[a + 9]) then
    return refuse(7, 0)
  end
  local leaseMs = tonumber(ARGV[a + 11])
  redis.call('ZADD', KEYS[k + 4], now + leaseMs, ARGV[a + 10])
  redis.call('PEXPIRE', KEYS[k + 4], leaseMs)
  redis.call('ZADD', KEYS[k + 5], now + leaseMs, ARGV[a + 10])
  redis.call('PEXPIRE', KEYS[k + 5], leaseMs)
  if crawlerGap >= 0 then
    local served = string.format('%d', now)
    redis.call('SET', KEYS[k + 6], served, 'PX', CRAWLER_MEMORY)
    redis.call('SET', KEYS[k + 7], served, 'PX', CRAWLER_MEMORY)
  end
  return {0, 0, hits, reset, now, previous, previousAny}
end

local results = {}
for i = 0, #KEYS / 7 - 1 do
  local answer = admit(7 * i, 13 * i)
  for j = 1, 7 do
    results[7 * i + j] = answer[j]
  end
end
return results
