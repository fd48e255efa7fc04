package io.sluice.engine.check;

import io.sluice.engine.UserAgents;
import io.sluice.engine.net.IpAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import javax.crypto.Mac;

/**
 * Makes and checks browser passes: signed cookie values that say "this client proved it runs a browser", bound
 * to the client's network (its IPv4 /24 or IPv6 /64, so a phone moving within its carrier's network or a NAT
 * keeps it), its user agent and an expiry. Checking one is a base64url decode and one HMAC, with no shared-state
 * lookup: any node with the key ring can check any pass. Thread-safe; the ring is swapped live on a rotation.
 *
 * <p>A cookie value is unpadded base64url of
 * {@code version(1) flags(1: bit 0 weak) keyId(4) expiresAtMillis(8) idLength(1) id(1-32) tag(16)}, where the tag
 * is HMAC-SHA256 over the bytes before it, the network and the user agent, cut to 16 bytes: 42 to 84 characters.
 */
public final class BrowserPasses {

    /** The cookie's name. */
    public static final String COOKIE = "sluice_pass";
    /** The longest pass id, in characters of base64url. */
    public static final int MAX_ID_LENGTH = 32;

    private static final byte VERSION = 1;
    private static final int HEAD = 15; // version, flags, key id, expiry, id length
    private static final int MIN_BYTES = HEAD + 1 + Signer.TAG_LENGTH;
    private static final int MAX_BYTES = HEAD + MAX_ID_LENGTH + Signer.TAG_LENGTH;
    private static final int MAX_CHARS = (MAX_BYTES * 4 + 2) / 3;

    private final Signer signer;

    public BrowserPasses(PassKeyRing keys) {
        this.signer = new Signer(keys);
    }

    /** Swaps the key ring (a rotation): the next call signs and checks with it. */
    public void keys(PassKeyRing keys) {
        signer.ring(keys);
    }

    /** The live key ring. */
    public PassKeyRing keys() {
        return signer.ring();
    }

    Signer signer() {
        return signer;
    }

    /**
     * A cookie value for a pass, signed with the current key.
     *
     * @param passId          the pass's identity: 1 to {@value #MAX_ID_LENGTH} characters of base64url
     * @param weak            earned by the no-JavaScript path
     * @param address         the client's address; the pass is bound to its network
     * @param userAgent       the client's user agent (null is none; cut as the engine cuts it)
     * @param expiresAtMillis when it stops being good
     * @throws IllegalArgumentException when the pass id is not 1 to 32 characters of base64url
     */
    public String mint(String passId, boolean weak, IpAddress address, String userAgent, long expiresAtMillis) {
        Objects.requireNonNull(address, "address");
        if (!validId(passId)) {
            throw new IllegalArgumentException("a pass id is 1 to " + MAX_ID_LENGTH + " characters of base64url");
        }
        int idLength = passId.length();
        byte[] value = new byte[HEAD + idLength + Signer.TAG_LENGTH];
        Signer.Local local = signer.local();
        value[0] = VERSION;
        value[1] = (byte) (weak ? 1 : 0);
        Signer.writeInt(value, 2, local.currentId());
        Signer.writeLong(value, 6, expiresAtMillis);
        value[14] = (byte) idLength;
        for (int i = 0; i < idLength; i++) {
            value[HEAD + i] = (byte) passId.charAt(i);
        }
        Mac mac = local.currentMac();
        bind(local, mac, value, HEAD + idLength, address, userAgent);
        local.sign(mac, value, HEAD + idLength);
        return Base64Url.encode(value, 0, value.length);
    }

    /**
     * What the pass in this cookie value says, or null when the value is absent, malformed, forged, expired, signed
     * by an unknown or retired key, or bound to another network or user agent. Never throws on any input.
     */
    public Pass check(String cookieValue, IpAddress address, String userAgent, long nowMillis) {
        if (cookieValue == null || address == null || cookieValue.length() > MAX_CHARS) {
            return null;
        }
        Signer.Local local = signer.local();
        byte[] value = local.buffer;
        int length = Base64Url.decode(cookieValue, value);
        if (length < MIN_BYTES || value[0] != VERSION || (value[1] & ~1) != 0) {
            return null;
        }
        int idLength = value[14];
        if (idLength < 1 || HEAD + idLength + Signer.TAG_LENGTH != length) {
            return null;
        }
        for (int i = 0; i < idLength; i++) {
            byte b = value[HEAD + i];
            if (b < 0 || !Base64Url.isAlphabet((char) b)) {
                return null;
            }
        }
        long expiresAt = Signer.readLong(value, 6);
        if (nowMillis >= expiresAt) {
            return null;
        }
        Mac mac = local.mac(Signer.readInt(value, 2), nowMillis);
        if (mac == null) {
            return null;
        }
        bind(local, mac, value, HEAD + idLength, address, userAgent);
        if (!local.verify(mac, value, HEAD + idLength)) {
            return null;
        }
        String id = new String(value, HEAD, idLength, StandardCharsets.ISO_8859_1); // checked base64url: ASCII
        return new Pass(id, expiresAt, value[1] == 1);
    }

    private static void bind(Signer.Local local, Mac mac, byte[] value, int length, IpAddress address,
            String userAgent) {
        mac.update(Signer.PASS);
        mac.update(value, 0, length);
        local.network(mac, address);
        local.text(mac, userAgent(userAgent));
    }

    /**
     * The network a pass is bound to, as text: the IPv4 /24 ({@code 192.0.2.0/24}) or the IPv6 /64
     * ({@code 2001:db8:1:2::/64}) holding the address.
     */
    public static String network(IpAddress address) {
        if (address.isIpv4()) {
            return IpAddress.ofIpv4((int) (address.low() & 0xFFFF_FF00L)) + "/24";
        }
        return IpAddress.ofIpv6(address.high(), 0) + "/64";
    }

    /** The user agent as the engine sees it: none is empty, and a long one is cut where the engine cuts it. */
    static String userAgent(String userAgent) {
        if (userAgent == null) {
            return "";
        }
        return userAgent.length() <= UserAgents.MAX_LENGTH
                ? userAgent : userAgent.substring(0, UserAgents.MAX_LENGTH);
    }

    static boolean validId(String passId) {
        if (passId == null || passId.isEmpty() || passId.length() > MAX_ID_LENGTH) {
            return false;
        }
        for (int i = 0; i < passId.length(); i++) {
            if (!Base64Url.isAlphabet(passId.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
