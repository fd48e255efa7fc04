-- Many leases at once, in one round trip: renewed (a long request keeps its slots) or forgotten (a release that
-- failed while Redis was away, retried).
-- KEYS[2i-1] client leases  KEYS[2i] address leases, for the i-th lease
-- ARGV[1] 'renew' or 'forget'  ARGV[2] lease ms  ARGV[2+i] the i-th lease id
-- Renewing never brings back a lease already gone (ZADD XX on the client's set): a release that crossed the renewal
-- wins. Runs after locals.lua and lease-names.lua.
-- The call's clock (ms) and lease time (ms), set by main.
local now, ms
-- Pushes a lease's expiry on (only if the set holds it already, when existing); true if it did.
local function renew(key, id, existing)
  local changed
  if existing then
    changed = call('ZADD', key, 'XX', 'CH', now + ms, id)
  else
    changed = call('ZADD', key, 'CH', now + ms, id)
  end
  if changed == 1 and call('PTTL', key) < ms then
    call('PEXPIRE', key, ms)
  end
  return changed == 1
end

local function main(keys, args)
  KEYS, ARGV = keys, args
  local t = call('TIME')
  now = tonumber(t[1]) * 1000 + floor(tonumber(t[2]) / 1000)
  ms = tonumber(ARGV[2])
  for i = 3, #ARGV do
    local id = ARGV[i]
    local clientLeases, addressLeases = KEYS[2 * (i - 2) - 1], KEYS[2 * (i - 2)]
    if ARGV[1] == 'renew' then
      -- A lease of an address's only client is in its client's set alone (lease-names.lua): a renewed one is put in
      -- the address's set too, and named so, so a request running longer than its client's marker lives is still
      -- counted by a newcomer.
      if renew(clientLeases, id .. BOTH, true) then
        renew(addressLeases, id, false)
      elseif call('ZREM', clientLeases, id) == 1 then
        renew(clientLeases, id .. BOTH, false)
        renew(addressLeases, id, false)
      end
    else
      giveBackLease(clientLeases, addressLeases, id)
    end
  end
  return #ARGV - 2
end
