package dev.relink.example;

import java.util.concurrent.Executor;

import dev.relink.ClaimRequest;
import dev.relink.ClaimResult;
import dev.relink.DeferredLink;
import dev.relink.DeviceInfo;
import dev.relink.KeyValueStore;
import dev.relink.Platform;
import dev.relink.Relink;

/** First launch: claims the link the user clicked before installing, and opens it. */
public final class DeferredLinkExample {
    /** Where the app goes with a deferred deep link. */
    public interface Navigator {
        /**
         * @param deepLink the link to open.
         * @param exact true when the install referrer named the click (UNIQUE): personal content is fine.
         */
        void open(String deepLink, boolean exact);
    }

    private final Relink relink;

    public DeferredLinkExample(String server, String packageName, KeyValueStore storage, Executor mainThread) {
        relink = new Relink(new Relink.Config(server, Platform.ANDROID, packageName, storage)
                .callbackExecutor(mainThread));
    }

    /** Call at every start-up: once the server has answered, it answers ALREADY_CLAIMED without a request. */
    public void onStart(String installReferrer, DeviceInfo device, final Navigator navigator) {
        relink.claimDeferredLink(new ClaimRequest(device, installReferrer), new Relink.Callback<ClaimResult>() {
            @Override
            public void onResult(ClaimResult result) {
                switch (result.getKind()) {
                    case MATCHED:
                        DeferredLink link = result.getLink();
                        // DEFAULT and WEAK are matches on the device's signals: open the link, show nothing personal.
                        navigator.open(link.getDeepLink(), link.getConfidence() == DeferredLink.Confidence.UNIQUE);
                        break;
                    case FAILED:
                        // Not marked done: the next start tries again, with the same install id.
                        break;
                    default:
                        // ORGANIC (no click before the install) or ALREADY_CLAIMED: the usual start screen.
                        break;
                }
            }
        });
    }
}
