-- Hits counted on a node without asking Redis (clients it knew to be refused until a time), added to their stacks
-- in this second, so the hit stack stays exact to within one heartbeat. Runs after hit-stacks.lua.
-- KEYS[i] a hit stack  ARGV[i] the weight to add
for i = 1, #KEYS do
  addHitsKeepingWindow(KEYS[i], tonumber(ARGV[i]))
end
return #KEYS
