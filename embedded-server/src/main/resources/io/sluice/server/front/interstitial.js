// Sluice's browser check (issue 46): find the smallest decimal nonce n such that SHA-256(token + ":" + n)
// starts with `bits` zero bits, then go to the pass path with the answer. Its own SHA-256: crypto.subtle is
// missing on plain-http sites. ES5, no dependencies; yields to the event loop every 4,096 hashes.
(function () {
  var d = document.getElementById("sluice-check");
  var token = d.getAttribute("data-token"), bits = +d.getAttribute("data-bits");
  var url = d.getAttribute("data-pass") + "?c=" + d.getAttribute("data-c") + "&n=";
  var back = "&r=" + d.getAttribute("data-r");
  var status = document.getElementById("sluice-status");
  var K = [0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2];
  var W = [], M = [], H = [];

  // Leading zero bits of SHA-256(text), text being ASCII (base64url, ':' and digits).
  function zeros(text) {
    var n = text.length, blocks = (n + 72) >> 6, i, j, o, a, b, c, e, f, g, h, dd, t1, t2, x, y, z;
    for (i = 0; i < blocks * 16; i++) M[i] = 0;
    for (i = 0; i < n; i++) M[i >> 2] |= text.charCodeAt(i) << (24 - (i & 3) * 8);
    M[n >> 2] |= 0x80 << (24 - (n & 3) * 8);
    M[blocks * 16 - 1] = n * 8;
    H[0] = 0x6a09e667; H[1] = 0xbb67ae85; H[2] = 0x3c6ef372; H[3] = 0xa54ff53a;
    H[4] = 0x510e527f; H[5] = 0x9b05688c; H[6] = 0x1f83d9ab; H[7] = 0x5be0cd19;
    for (o = 0; o < blocks * 16; o += 16) {
      a = H[0]; b = H[1]; c = H[2]; dd = H[3]; e = H[4]; f = H[5]; g = H[6]; h = H[7];
      for (j = 0; j < 64; j++) {
        if (j < 16) {
          W[j] = M[o + j] | 0;
        } else {
          x = W[j - 15]; y = W[j - 2];
          W[j] = (((x >>> 7 | x << 25) ^ (x >>> 18 | x << 14) ^ (x >>> 3))
            + ((y >>> 17 | y << 15) ^ (y >>> 19 | y << 13) ^ (y >>> 10)) + W[j - 7] + W[j - 16]) | 0;
        }
        t1 = (h + ((e >>> 6 | e << 26) ^ (e >>> 11 | e << 21) ^ (e >>> 25 | e << 7))
          + ((e & f) ^ (~e & g)) + K[j] + W[j]) | 0;
        t2 = (((a >>> 2 | a << 30) ^ (a >>> 13 | a << 19) ^ (a >>> 22 | a << 10))
          + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        h = g; g = f; f = e; e = (dd + t1) | 0; dd = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      H[0] = (H[0] + a) | 0; H[1] = (H[1] + b) | 0; H[2] = (H[2] + c) | 0; H[3] = (H[3] + dd) | 0;
      H[4] = (H[4] + e) | 0; H[5] = (H[5] + f) | 0; H[6] = (H[6] + g) | 0; H[7] = (H[7] + h) | 0;
    }
    for (z = 0, i = 0; i < 8; i++) {
      x = H[i] >>> 0;
      if (x) {
        while (!(x & 0x80000000)) { z++; x <<= 1; }
        return z;
      }
      z += 32;
    }
    return z;
  }

  var nonce = 0, prefix = token + ":";
  var later = window.MessageChannel ? (function () {
    var channel = new MessageChannel();
    channel.port1.onmessage = run;
    return function () { channel.port2.postMessage(0); };
  })() : function () { setTimeout(run, 0); };

  function run() {
    for (var end = nonce + 4096; nonce < end; nonce++) {
      if (zeros(prefix + nonce) >= bits) {
        location.replace(url + nonce + back);
        return;
      }
    }
    if (status) status.textContent = "Checking\u2026 " + nonce + " hashes";
    later();
  }
  run();
})();
