/**
 * The version of ptyhub. build.ts stamps the release version in at compile time through the
 * `PTYHUB_BUILD_VERSION` define; running from source reports the package.json version.
 */
import pkg from "../package.json" with { type: "json" };

declare const PTYHUB_BUILD_VERSION: string | undefined;

export const VERSION: string = typeof PTYHUB_BUILD_VERSION === "string" ? PTYHUB_BUILD_VERSION : pkg.version;
