package io.sluice.crawl;

/** The governor gave the domain up after too many errors; only an operator brings it back. */
public final class DomainGivenUpException extends PermitServiceException {
    public DomainGivenUpException(String domain) {
        super(200, domain + " is given up by the crawl governor; an operator must revive it");
    }
}
