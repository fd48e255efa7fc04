-- The globals the per-request scripts use, as locals; LuaScript puts this text first in client-admit.lua,
-- client-flush.lua, client-release.lua and client-leases.lua, which run as Redis functions where Redis has them:
-- their definitions made once, their main(keys, args) on each call (function-library.lua). In Redis's Lua a global is
-- found by name in a table each time it is used (redis.call twice: redis, then call), a local is a register: with the
-- numbers parsed once per call (client-admit.lua), this cut Redis's instructions per admission by about a tenth
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
