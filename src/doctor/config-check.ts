/** The configuration file: valid, empty (every default, most likely not what was meant), or invalid. */
import { configHealth } from "../config/config-health.ts";
import { type Finding, findingsOf } from "./finding.ts";

const is = findingsOf("config");

export async function checkConfig(): Promise<Finding[]> {
  const health = configHealth();
  switch (health.state) {
    case "absent":
      return [is.ok(health.path, "no config file: every setting has its default")];
    case "valid":
      return [is.ok(health.path, "valid")];
    case "empty":
      return [
        is.warn(
          health.path,
          "empty: every setting has its default",
          `Write the settings you meant as {"key": value} (docs/config.md), or remove the file.`,
        ),
      ];
    case "invalid":
      return [is.fail(health.path, health.message, health.hint)];
  }
}
