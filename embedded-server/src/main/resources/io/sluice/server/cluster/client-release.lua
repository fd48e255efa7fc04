-- An admitted request's slots given back (docs/architecture-cluster.md, "The shared per-client store"). Runs after
-- locals.lua and lease-names.lua.
-- KEYS[1] client leases  KEYS[2] address leases  KEYS[3] this crawler's last service  KEYS[4] any crawler's
-- ARGV[1] lease id  ARGV[2] '1' when the request was not served: give the crawler's turn back too
-- ARGV[3] the service time the admission recorded  ARGV[4] the crawler's previous  ARGV[5] any crawler's previous
-- (-1: never served)
-- A turn is given back only where it is still the one recorded: a crawler served since keeps its own.
local function giveBackTurn(key, served, previous)
  if call('GET', key) == served then
    if previous == '-1' then
      call('DEL', key)
    else
      call('SET', key, previous, 'KEEPTTL')
    end
  end
end

local function main(keys, args)
  giveBackLease(keys[1], keys[2], args[1])
  if args[2] == '1' then
    giveBackTurn(keys[3], args[3], args[4])
    giveBackTurn(keys[4], args[3], args[5])
  end
  return 1
end
