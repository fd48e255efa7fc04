-- Hits counted on a node without asking Redis (clients it knew to be refused until a time), added to their stacks
-- in this second, so the hit stack stays exact to within one heartbeat. Runs after locals.lua, hit-stacks.lua and
-- address-stacks.lua.
-- KEYS[i] a hit stack  ARGV[2i-1] the weight to add  ARGV[2i] for an address's stack, the stack of the client the
-- hits came from ('' for any other stack)
local function main(keys, args)
  KEYS, ARGV = keys, args
  readClock()
  for i = 1, #KEYS do
    local weight, from = tonumber(ARGV[2 * i - 1]), ARGV[2 * i]
    if from == '' then
      addHitsKeepingWindow(openStack(KEYS[i]), weight)
    else
      addAddressHits(KEYS[i], weight, from)
    end
  end
  return #KEYS
end
