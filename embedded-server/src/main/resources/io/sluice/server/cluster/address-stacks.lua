-- An address's aggregate in Redis, answered by its only client while it has one (docs/architecture-cluster.md,
-- "An address's only client"); LuaScript puts this text after locals.lua, hit-stacks.lua and lease-names.lua and
-- ahead of the scripts that push an address's hits (client-admit.lua, client-flush.lua).
-- Most addresses have one user agent. While that holds, the address's stack and leases would be copies of its
-- client's: its key holds a marker naming that client instead, and the client's own stack and leases answer for the
-- address (its hits over the address's window, its leases against the address's limit). The first request or
-- flushed hit of another client folds the address: the client's stack and live leases are copied to the address's
-- own keys, which count every client from then on, until they expire. Half the commands of an admission are the
-- address's (docs/BENCHMARKS.md, issue 29).
-- A marker: '=', the second its expiry was set (ten digits), then the client's stack key, its leases key and the
-- address's leases key, each ending in a newline: read at fixed places, since an unanchored pattern over it cost more
-- per admission than the commands it saves. It lives as long as its client's stack at least: set again with the same
-- TTL, as often.

-- The marker naming the client whose stack is clientKey, set this second.
local function soleMarker(clientKey, clientLeases, addressLeases)
  local marker = '=' .. format('%010d', second) .. clientKey .. '\n' .. clientLeases .. '\n' .. addressLeases
      .. '\n'
  if #marker == STACK_BYTES then
    marker = marker .. '\n' -- never the length of a stack
  end
  return marker
end

-- Whether the string at an address's key is a marker (else a stack).
local function isMarker(held)
  return #held ~= STACK_BYTES
end

-- Whether marker names the client whose stack is clientKey.
local function marks(marker, clientKey)
  return byte(marker, #clientKey + 12) == 10 and sub(marker, 12, #clientKey + 11) == clientKey
end

-- The address's own keys made from its only client's, now that another client comes: its stack copied (or none,
-- if the client's expired) and its live leases. Returns the address's stack as now held, or nil.
local function fold(addressKey, marker)
  local clientKey, clientLeases, addressLeases = string.match(marker, '^([^\n]*)\n([^\n]*)\n([^\n]*)\n', 12)
  local packed = call('GET', clientKey)
  if packed then
    -- the client no longer answers for its address, nor the copy for a client (hit-stacks.lua)
    writeAdmissionSecond(clientKey, ALONE_AT, 0)
    packed = sub(packed, 1, ALONE_AT) .. structPack('<I4I4', 0, 0) .. sub(packed, HEADER_BYTES + 1)
    call('SET', addressKey, packed, 'EX', TTL_TEXT)
  else
    call('DEL', addressKey)
    packed = nil
  end
  local live = call('ZRANGEBYSCORE', clientLeases, '(' .. now, '+inf', 'WITHSCORES')
  if #live > 0 then
    -- a few hundred at a time: unpack's arguments are bounded. A lease in the client's set alone goes to the
    -- address's too, and is named so in the client's (lease-names.lua); a renewed one is there already.
    for first = 1, #live, 512 do
      local scored, renamed, alone = {}, {}, {}
      for i = first, min(#live, first + 510), 2 do
        local id, expiry = live[i], live[i + 1]
        if sub(id, -1) ~= BOTH then
          scored[#scored + 1] = expiry
          scored[#scored + 1] = id
          renamed[#renamed + 1] = expiry
          renamed[#renamed + 1] = id .. BOTH
          alone[#alone + 1] = id
        end
      end
      if #alone > 0 then
        call('ZADD', addressLeases, unpack(scored))
        call('ZREM', clientLeases, unpack(alone))
        call('ZADD', clientLeases, unpack(renamed))
      end
    end
    local ttl = call('PTTL', clientLeases)
    if ttl > 0 then
      call('PEXPIRE', addressLeases, ttl)
    end
  end
  return packed
end

-- For an admission: whether the client whose stack (as read) and leases are given answers for its address, and if
-- not, the address's stack as read (nil: none). An address with no stack and no leases becomes this client's.
-- The client's stack remembers the second its marker was set (alone): until the marker is due to be set again, the
-- marker is there without reading it, since only a fold replaces it, and a fold forgets that second. So a busy
-- only client reads its marker once every REFRESH s, not on every request (a 100-byte string, a command and a
-- comparison each time). The client's push writes what it found here into its stack's header.
local function addressOf(addressKey, clientStack, clientLeases, addressLeases)
  local setAt = clientStack.alone
  if setAt > 0 and second >= setAt and second - setAt < REFRESH then
    return true, nil
  end
  local clientKey = clientStack.key
  local held = call('GET', addressKey)
  if not held then
    if call('EXISTS', addressLeases) == 1 then
      return false, nil -- another client's request still runs: counted by the address
    end
    call('SET', addressKey, soleMarker(clientKey, clientLeases, addressLeases), 'EX', TTL_TEXT)
    clientStack.alone = second
    return true, nil
  end
  if not isMarker(held) then
    return false, held
  end
  if marks(held, clientKey) then
    setAt = tonumber(sub(held, 2, 11))
    if second - setAt >= REFRESH or setAt > second then
      call('SET', addressKey, soleMarker(clientKey, clientLeases, addressLeases), 'EX', TTL_TEXT)
      setAt = second
    end
    clientStack.alone = setAt
    return true, nil
  end
  return false, fold(addressKey, held)
end

-- For a flush: weight hits of the client whose stack is fromKey, counted on a node, added to its address's stack
-- (held: what the flush read at addressKey); none while that client answers for the address (its own stack gets
-- them).
local function addAddressHits(addressKey, weight, fromKey, held)
  if held and isMarker(held) then
    if marks(held, fromKey) then
      return
    end
    held = fold(addressKey, held)
  end
  addHitsKeepingWindow(stackOf(addressKey, held or nil), weight)
end
