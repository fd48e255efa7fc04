-- How a lease is named in its client's set, shared by the scripts that take, copy, renew and give back leases
-- (client-admit.lua, address-stacks.lua, client-leases.lua, client-release.lua); LuaScript puts this text ahead of
-- theirs, after locals.lua (docs/architecture-cluster.md, "An address's only client").
-- A lease of an address's only client is in its client's set alone, under its id; one in its address's set too is
-- in its client's set under its id and BOTH. So giving back the lease of an only client, most leases, is one ZREM
-- (it names the set it is in) instead of one per set; a lease given back finds out which it is by the first ZREM.
local BOTH = '+'

-- Gives back lease id from its client's set and its address's, when its client's set did not have it under its id
-- alone (the first ZREM, which giveBackLease makes and client-admit.lua makes its own way).
local function giveBackBoth(clientLeases, addressLeases, id)
  call('ZREM', clientLeases, id .. BOTH)
  call('ZREM', addressLeases, id)
end

-- Gives back lease id, from its client's set and, if it is there too, its address's.
local function giveBackLease(clientLeases, addressLeases, id)
  if call('ZREM', clientLeases, id) == 0 then
    giveBackBoth(clientLeases, addressLeases, id)
  end
end
