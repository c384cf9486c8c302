/// This build's release: `relink --version` prints it, and `Scripts/release.sh` names the tarball after it. Raised
/// when a release is cut (docs/releasing.md).
public enum RelinkVersion {
    public static let current = "1.0.0"
}
