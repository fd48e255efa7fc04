#!lua name=LIBRARY
-- A per-request script (client-admit.lua and the others that end by defining main(keys, args)) as a Redis function,
-- where Redis has them (7.0 and later). LuaScript fills in the two placeholders: the script's whole text for the line
-- below, and the name of the library and of its one function, sluice_ and the SHA-1 of the script's text (so two
-- versions of a node can run side by side during an upgrade).
-- EVALSHA runs a script's whole text on each call, so every local function in it is made again each time: about
-- 72,000 of the 158,000 instructions a call costs Redis whatever its size (docs/BENCHMARKS.md, issue 29). A function
-- keeps its definitions between calls. They are made at its first call, not when the library loads: a library's
-- load may touch no global but redis.register_function (not tonumber, string, struct, redis.call).
-- allow-cross-slot-keys: on a Redis Cluster a call of client-admit.lua may carry the keys of several slots its
-- master serves, in its arguments (client-admit.lua says how a slot that moved is answered).
local run
redis.register_function{function_name = 'LIBRARY', callback = function(keys, args)
  if not run then
    run = (function()
--SCRIPT--
      return main
    end)()
  end
  return run(keys, args)
end, flags = {'allow-cross-slot-keys'}}
