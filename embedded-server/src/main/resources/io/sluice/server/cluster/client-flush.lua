-- Hits counted on a node without asking Redis (clients it knew to be refused until a time), added to their stacks
-- in this second, so the hit stack stays exact to within one heartbeat. Runs after locals.lua, hit-stacks.lua and
-- address-stacks.lua.
-- KEYS[i] a hit stack  ARGV[2i-1] the weight to add  ARGV[2i] for an address's stack, the stack of the client the
-- hits came from ('' for any other stack)
-- On a Redis Cluster a flush may carry the stacks of several slots of one master (openCall, in locals.lua: one call
-- per master each heartbeat, not one per slot: under a flood of refused addresses, thousands). A stack whose slot
-- moved since the node read the topology is found by its first command, a read: nothing is added to it, and its index
-- is answered, for the node to send it again with its key declared.
-- Returns the indexes of the stacks not here (none but in a call that carries its keys).
local function main(keys, args)
  local carried = openCall(keys, args)
  local first = carried and tryCall or call
  readClock()
  local notHere = {}
  for i = 1, #KEYS do
    local weight, from = tonumber(ARGV[2 * i - 1]), ARGV[2 * i]
    local read
    if from == '' then
      read = first('GETRANGE', KEYS[i], '0', HEADER_END)
    else
      read = first('GET', KEYS[i])
    end
    if carried and type(read) == 'table' then
      notHere[#notHere + 1] = i
    elseif from == '' then
      addHitsKeepingWindow(stackFrom(KEYS[i], read, nil), weight)
    else
      addAddressHits(KEYS[i], weight, from, read)
    end
  end
  return notHere
end
