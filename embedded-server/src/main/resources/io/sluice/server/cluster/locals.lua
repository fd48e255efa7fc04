-- The globals the per-request scripts use, as locals; LuaScript puts this text first in client-admit.lua,
-- client-flush.lua, client-release.lua and client-leases.lua, which run as Redis functions where Redis has them:
-- their definitions made once, their main(keys, args) on each call (function-library.lua). In Redis's Lua a global is
-- found by name in a table each time it is used (redis.call twice: redis, then call), a local is a register: with the
-- numbers parsed once (client-admit.lua), this cut Redis's instructions per admission by about a tenth
-- (docs/BENCHMARKS.md, issue 29).
local call = redis.call
-- A command whose failure is answered as an error table, not raised: the first command of each request in a Redis
-- Cluster master's call, whose slot may have moved (client-admit.lua).
local tryCall = redis.pcall
-- A call's keys and arguments, set by the script's main: a Redis function has no KEYS and ARGV globals.
local KEYS, ARGV
local tonumber, tostring, type, unpack = tonumber, tostring, type, unpack
local structPack, structUnpack = struct.pack, struct.unpack
local format, sub, byte, rep = string.format, string.sub, string.byte, string.rep
local max, min, floor = math.max, math.min, math.floor
-- Sets KEYS and ARGV for a call of client-admit.lua or client-flush.lua; returns whether its keys were carried. On a
-- Redis Cluster such a call may carry the keys of every slot its master served when the node sent it, not of one
-- slot (its fixed cost shared by a master's clients, not a slot's, which are mostly one; LuaScript.runOnMaster): it
-- declares one key, whose slot routes it, and its arguments are CARRIED, the number of keys K, the K keys, then the
-- script's own arguments. Such keys are not declared, so Redis refuses one whose slot has moved to another master
-- since the node read the topology: the script makes each request's first command with tryCall and answers for it.
local CARRIED = '*'
local function openCall(keys, args)
  if args[1] == CARRIED then
    local count = tonumber(args[2])
    KEYS, ARGV = {unpack(args, 3, count + 2)}, {unpack(args, count + 3)}
    return true
  end
  KEYS, ARGV = keys, args
  return false
end
