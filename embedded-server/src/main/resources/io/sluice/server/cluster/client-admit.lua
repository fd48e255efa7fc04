-- Rules 3-5 of a batch of requests, one after the other as if each were sent alone, for every node, atomically, on
-- Redis's clock (docs/architecture-cluster.md, "The shared per-client store"). Hits are pushed first (a refused
-- request counts too); the first refusal wins, in the order of rule 3 (this crawler, any crawler), rule 4 (the
-- client's, the route's, the address's hit stack), rule 5 (the client's, the address's requests in flight); the
-- leases and the crawler's turn are taken only when every rule passed; an address's only client answers for it
-- (address-stacks.lua). Runs after locals.lua, hit-stacks.lua, lease-names.lua and address-stacks.lua.
-- First the leases this node gave back since its last call (they travel with the admissions, so a client's next
-- request never finds its last one's slot still taken): ARGV[1] their number R, then their ids; KEYS[2i-1] and
-- KEYS[2i] the client's and the address's leases of the i-th.
-- The limits come once per call, as few sets as the batch's requests use (arguments cost Redis time to read):
-- ARGV[R + 2] the number of sets P, then P sets of LIMITS numbers: client window s, client max hits, route window s
-- (0: no route limits), route max hits, address window s, address max hits, client max in flight, address max in
-- flight, lease ms, any crawler's gap ms, network window s (0: the browser check asks nothing about the request's
-- network), network max hits, whether the network's budget decides (1) or not (0), pass window s (0: not on a pass),
-- pass max hits.
-- Then each request in turn, with ARGS arguments: weight, its set of limits (from 1), lease id, this crawler's gap
-- ms (-1: not a crawler); and its keys, after the releases', in order: client hits, address hits (hit stacks, as
-- hit-stacks.lua keeps them), client leases, address leases (sorted sets: lease id scored by its expiry, ms), then
-- route hits if its limits have a route window, then this crawler's and any crawler's last service (ms) if it is a
-- crawler, then its network's hits (the browser check's stack of claims without a pass, or of requests on a pass) if
-- its limits have a network window, then its pass's own hits if they have a pass window.
-- The network first (the browser check comes before the client's rules): the request's weight is pushed on its stack,
-- and on its pass's (a pass is an identity: its pace is one person's, whatever address it comes from); either over a
-- budget that decides, the request answers NETWORK_BUDGET (8) with the ms until the network is below it again, and
-- nothing of the client's is judged or counted; otherwise the client's rules follow as for any request.
-- Returns, for each request in turn, {verdict, retry ms, client hits in window, ms until its oldest leaves} and, for a
-- crawler's request only, {now ms, crawler's previous service, any crawler's previous service (-1: never)},
-- flattened: every number of the answer costs Redis a conversion and the node a parse, and only a crawler's turn,
-- given back, needs the last three; verdict 0 admitted, 1 CRAWLER_SPACING, 2 CRAWLERS_BUSY, 3 HIT_STACK,
-- 4 ROUTE_LIMIT, 5 ADDRESS_HIT_STACK, 6 CLIENT_CONCURRENCY, 7 ADDRESS_CONCURRENCY, 8 NETWORK_BUDGET; plus NETWORK_OVER
-- (16) when the request's network was over its budget, PASS_OVER (64) when its pass was over its pace, and TOOK_OVER
-- (32) when this request's weight took either over.
-- On a Redis Cluster a call may carry the keys of several slots of one master (openCall, in locals.lua): a slot that
-- moved to another master since the node read the topology is found by each request's and each release's first
-- command (a read, or a ZREM that fails before it writes): that request answers NOT_HERE, with nothing done, and the
-- 1-based index of each such release follows the requests' answers. The node sends them again in calls of their own,
-- with their keys declared, which Redis Cluster redirects.
local LIMITS = 15
local ARGS = 4
local NOT_HERE = -1
local NETWORK_BUDGET, NETWORK_OVER, TOOK_OVER, PASS_OVER = 8, 16, 32, 64
-- What the request's network added to its verdict (set by admit, added by main).
local networkFlags
-- The first command of a request or release: call, or in a call carrying a master's slots (carried), tryCall (a slot
-- that moved answers an error table, which only such a call need look for: a type() per request cost 0.8%).
local first, carried
-- The call's sets of limits, as numbers (made by main on each call, as is the expiries cache below; the numbers
-- cache is kept from call to call).
local sets
-- A crawler's last service is remembered longer than the longest gap a policy may set (a day).
local CRAWLER_MEMORY = 90000000

-- Takes a lease in a set of leases. The set outlives its newest lease: its expiry is pushed to two leases' time
-- whenever less than one is left, rather than set again on every lease (a PEXPIRE cost as much as the ZADD). A new
-- set gets a placeholder that never counts (scored 0, long expired), so giving its last lease back does not delete
-- the set only for the next request to make it again: most clients have one request in flight at a time, and a set
-- made and deleted per request cost three commands more (docs/BENCHMARKS.md, issue 29).
local PLACEHOLDER = '-'
-- A lease's expiry as the string ZADD takes, made once per call (a number made a string costs a formatting).
local expiries
local function expiryOf(leaseMs)
  local expiry = expiries[leaseMs]
  if not expiry then
    expiry = format('%d', now + leaseMs)
    expiries[leaseMs] = expiry
  end
  return expiry
end
local function lease(key, id, leaseMs)
  call('ZADD', key, expiryOf(leaseMs), id)
  local ttl = call('PTTL', key)
  if ttl < leaseMs then
    if ttl < 0 then
      call('ZADD', key, 0, PLACEHOLDER)
    else
      -- the leases of nodes that died with requests running go, so a set always busy stays small
      call('ZREMRANGEBYSCORE', key, '(0', now)
    end
    call('PEXPIRE', key, 2 * leaseMs)
  end
end

-- Takes a lease in a client's set, whose stack (as read) keeps the second the set's expiry was last pushed on to
-- two leases' time: within a lease's time of that second, the set outlives this lease without asking its expiry
-- (a PTTL per admission). Past it, the expiry is pushed on and the second kept in the stack, if there is one: once a
-- lease's time for a busy client. A set that went meanwhile (deleted by hand, evicted) is made again without an
-- expiry until that push, a lease's time at most.
local function leaseOfClient(stack, stackWritten, key, id, leaseMs)
  local pushed = stack.leasesPushed
  if pushed > 0 and pushed <= second and now <= pushed * 1000 + leaseMs then
    call('ZADD', key, expiryOf(leaseMs), id)
    return
  end
  -- the placeholder is added again: the set is new when both are (no expired leases to sweep then)
  if call('ZADD', key, 0, PLACEHOLDER, expiryOf(leaseMs), id) < 2 then
    call('ZREMRANGEBYSCORE', key, '(0', now)
  end
  call('PEXPIRE', key, 2 * leaseMs)
  if stackWritten then
    writeAdmissionSecond(stack.key, LEASES_PUSHED_AT, second)
  end
end

-- The numbers of requests and limits, each text parsed once and kept from call to call (a Redis function keeps its
-- state): most calls send the same few ('1', '-1', a policy's limits), and finding one in a table costs less than
-- parsing it (glibc's strtod: about a thousand instructions a number). At most NUMBERS_KEPT texts are kept.
local NUMBERS_KEPT = 1000
local numbers, numbersKept = {}, 0
local function number(text)
  local parsed = tonumber(text)
  if numbersKept >= NUMBERS_KEPT then
    numbers, numbersKept = {}, 0
  end
  numbers[text] = parsed
  numbersKept = numbersKept + 1
  return parsed
end

-- Leases that count: those expiring after now (made once per call).
local live

-- One request's rules: its arguments from ARGV[a + 1], its keys from KEYS[k + 1]; returns the number of keys it had,
-- then its answer: verdict, retry ms, client hits in window, ms until its oldest leaves, and for a crawler's request
-- the crawler's and any crawler's previous service (nil for any other).
local function admit(a, k)
  local weight = numbers[ARGV[a + 1]] or number(ARGV[a + 1])
  local limits = sets[numbers[ARGV[a + 2]] or number(ARGV[a + 2])]
  local crawlerGap = numbers[ARGV[a + 4]] or number(ARGV[a + 4])
  local clientLeases, addressLeases = KEYS[k + 3], KEYS[k + 4]
  local keys = 4
  networkFlags = 0
  local networkWindow, passWindow = limits[11], limits[14]
  local header = first('GETRANGE', KEYS[k + 1], '0', HEADER_END)
  if carried and type(header) == 'table' then
    local used = keys + (limits[3] > 0 and 1 or 0) + (networkWindow > 0 and 1 or 0) + (passWindow > 0 and 1 or 0)
    if crawlerGap >= 0 then
      return used + 2, NOT_HERE, 0, 0, 0, -1, -1
    end
    return used, NOT_HERE, 0, 0, 0
  end
  if networkWindow > 0 then
    -- its keys are the request's last (in its client's slot on a Redis Cluster)
    local used = keys + (limits[3] > 0 and 1 or 0) + (crawlerGap >= 0 and 2 or 0) + 1
    local networkMax = limits[12]
    local networkHits, networkBelow = push(openStack(KEYS[k + used]), weight, networkWindow, networkMax)
    local tookOver = false
    if networkHits > networkMax then
      networkFlags = NETWORK_OVER
      tookOver = weight > 0 and networkHits - weight <= networkMax
    end
    if passWindow > 0 then
      used = used + 1
      local passMax = limits[15]
      local passHits = push(openStack(KEYS[k + used]), weight, passWindow, passMax)
      if passHits > passMax then
        networkFlags = networkFlags + PASS_OVER
        tookOver = tookOver or (weight > 0 and passHits - weight <= passMax)
      end
    end
    if networkFlags > 0 then
      if tookOver then
        networkFlags = networkFlags + TOOK_OVER
      end
      if limits[13] == 1 then
        if crawlerGap >= 0 then
          return used, NETWORK_BUDGET, networkBelow, 0, 0, -1, -1
        end
        return used, NETWORK_BUDGET, networkBelow, 0, 0
      end
    end
  end
  local clientStack = stackFrom(KEYS[k + 1], header, nil)
  -- before the client's push, which keeps in its header whether the client answers for its address
  local alone, addressStack = addressOf(KEYS[k + 2], clientStack, clientLeases, addressLeases)
  local hits, below, reset = push(clientStack, weight, limits[1], limits[2])
  local routeWindow = limits[3]
  local routeHits, routeBelow = 0, 0
  if routeWindow > 0 then
    keys = keys + 1
    routeHits, routeBelow = push(openStack(KEYS[k + keys]), max(1, weight), routeWindow, limits[4])
  end
  local addressHits, addressBelow
  if alone then
    -- the client's stack (as read, before its push) answers for its address's, over the address's window
    addressHits, addressBelow = measure(clientStack, weight, limits[5], limits[6])
  else
    addressHits, addressBelow = push(stackOf(KEYS[k + 2], addressStack), weight, limits[5], limits[6])
  end
  local crawlerKey, anyCrawlerKey
  if crawlerGap >= 0 then
    crawlerKey, anyCrawlerKey = KEYS[k + keys + 1], KEYS[k + keys + 2]
    keys = keys + 2
  end
  if networkWindow > 0 then
    keys = keys + 1
  end
  if passWindow > 0 then
    keys = keys + 1
  end

  -- a crawler's refusal answers -1 for its previous services, another request's nothing
  local previous, previousAny, none
  -- 3. crawler spacing
  if crawlerGap >= 0 then
    previous, previousAny, none = -1, -1, -1
    local last = call('GET', crawlerKey)
    if last then
      previous = tonumber(last)
      if now - previous < crawlerGap then
        return keys, 1, previous + crawlerGap - now, hits, reset, none, none
      end
    end
    local any = call('GET', anyCrawlerKey)
    local anyGap = limits[10]
    if any then
      previousAny = tonumber(any)
      if now - previousAny < anyGap then
        return keys, 2, previousAny + anyGap - now, hits, reset, none, none
      end
    end
  end
  -- 4. hit stacks
  if hits > limits[2] then
    return keys, 3, below, hits, reset, none, none
  end
  if routeWindow > 0 and routeHits > limits[4] then
    return keys, 4, routeBelow, hits, reset, none, none
  end
  if addressHits > limits[6] then
    return keys, 5, addressBelow, hits, reset, none, none
  end
  -- 5. requests in flight: a lease that expired (its node died with the request running) no longer counts; it goes
  -- from its key when the key's expiry is pushed on, and with its key, which lives at least a lease's time after the
  -- last lease taken (no lease outlives that: each expires at most a lease's time after it was taken or renewed)
  local running = call('ZCOUNT', clientLeases, live, '+inf')
  if running >= limits[7] then
    return keys, 6, 0, hits, reset, none, none
  end
  if not alone then
    running = call('ZCOUNT', addressLeases, live, '+inf')
  end
  if running >= limits[8] then
    return keys, 7, 0, hits, reset, none, none
  end
  -- the client's stack was written by its push, or was there
  local stackWritten = weight > 0 or clientStack.last ~= nil
  if alone then
    leaseOfClient(clientStack, stackWritten, clientLeases, ARGV[a + 3], limits[9])
  else
    leaseOfClient(clientStack, stackWritten, clientLeases, ARGV[a + 3] .. BOTH, limits[9])
    lease(addressLeases, ARGV[a + 3], limits[9])
  end
  if crawlerGap >= 0 then
    local served = format('%d', now)
    call('SET', crawlerKey, served, 'PX', CRAWLER_MEMORY)
    call('SET', anyCrawlerKey, served, 'PX', CRAWLER_MEMORY)
  end
  return keys, 0, 0, hits, reset, previous, previousAny
end

-- The call: the releases, the sets of limits, then each request in turn.
local function main(keys, args)
  carried = openCall(keys, args)
  first = carried and tryCall or call
  readClock()
  sets, expiries = {}, {}
  live = '(' .. format('%d', now)
  local released = tonumber(ARGV[1])
  local notHere
  for i = 1, released do
    local clientLeases, addressLeases, id = KEYS[2 * i - 1], KEYS[2 * i], ARGV[1 + i]
    local removed = first('ZREM', clientLeases, id)
    if carried and type(removed) == 'table' then
      notHere = notHere or {}
      notHere[#notHere + 1] = i
    elseif removed == 0 then
      giveBackBoth(clientLeases, addressLeases, id)
    end
  end
  local base = released + 2
  for p = 1, tonumber(ARGV[base]) do
    local set = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0} -- LIMITS, made at its size
    for j = 1, LIMITS do
      local text = ARGV[base + (p - 1) * LIMITS + j]
      set[j] = numbers[text] or number(text)
    end
    sets[p] = set
  end
  local results = {}
  local n = 0
  local a = base + #sets * LIMITS
  local k = 2 * released
  while a < #ARGV do
    local used, verdict, retry, hits, reset, previous, previousAny = admit(a, k)
    if networkFlags > 0 then
      verdict = verdict + networkFlags
    end
    results[n + 1], results[n + 2], results[n + 3], results[n + 4] = verdict, retry, hits, reset
    n = n + 4
    if previous then
      results[n + 1], results[n + 2], results[n + 3] = now, previous, previousAny
      n = n + 3
    end
    a = a + ARGS
    k = k + used
  end
  if notHere then
    for i = 1, #notHere do
      results[n + i] = notHere[i]
    end
  end
  return results
end
