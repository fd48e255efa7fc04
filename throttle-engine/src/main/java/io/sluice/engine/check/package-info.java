/**
 * The browser check's cryptography (issue 46, docs "Browsers are a claim too"): {@link
 * io.sluice.engine.check.BrowserPasses} makes and checks passes, signed cookie values bound to a client's
 * network, user agent and an expiry; {@link io.sluice.engine.check.ProofOfWork} issues and checks the
 * proof-of-work challenges a browser solves to earn one. Both are stateless (no store, no shared-state lookup:
 * any node with the key ring checks what any node made), take time as an argument, use only the JDK's
 * HmacSHA256 and SHA-256, bound every input before any cryptography, and never throw on what a client sends.
 * The keys ({@link io.sluice.engine.check.PassKeyRing}) rotate: the replaced key is still accepted for one pass
 * lifetime.
 */
package io.sluice.engine.check;
