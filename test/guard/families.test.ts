/**
 * Issue 35 item 5, second round: the weak classes of the held-out corpus (scheduler-config,
 * irreplaceable, remote, git, indirection), widened by families of spellings written here — other
 * tools, flags, service managers, shells, interpreters — without reading the held-out lines. Each
 * dangerous line names the rule that must stop it; each family has harmless look-alikes of the
 * same shape that must pass. Judged in corpusContext (corpus.ts: home /home/dev, cwd
 * /home/dev/project with uncommitted work on feature/x; /home/dev/onmain is on main).
 */
import { describe, expect, test } from "bun:test";
import { classifyShellLine, ruleSet } from "../../src/guard/classify.ts";
import { corpusContext } from "./corpus.ts";

const rules = ruleSet();
const rulesOf = (line: string) => classifyShellLine(line, corpusContext, rules).map((f) => f.rule);

const STOPPED: Record<string, [string, string][]> = {
  // Other service managers, firewalls, network tools, schedulers and ways to empty a crontab.
  "scheduler-config": [
    ["sv down sshd", "system-config"],
    ["sudo sv force-stop /etc/service/cron", "system-config"],
    ["initctl stop ssh", "system-config"],
    ["stop ssh", "system-config"],
    ["s6-svc -d /run/service/sshd", "system-config"],
    ["systemctl --user disable --now backup.timer", "system-config"],
    ["systemctl set-default rescue.target", "system-config"],
    ["systemctl stop $(systemctl list-timers --plain --no-legend | awk '{print $NF}')", "system-config"],
    ["systemctl list-units --type=timer --no-legend | awk '{print $1}' | xargs systemctl disable", "system-config"],
    ["ln -s /dev/null /etc/systemd/system/cron.service", "system-config"],
    ["sudo rm /etc/systemd/system/*.timer", "empty-system-file"],
    ["rm -f /etc/systemd/system/timers.target.wants/backup.timer", "empty-system-file"],
    ["rm /etc/anacrontab", "empty-system-file"],
    ["cat /dev/null | crontab -", "system-config"],
    ["true | crontab", "system-config"],
    ["crontab -u root /dev/null", "system-config"],
    ["fcrontab -r", "irreplaceable-delete"],
    ["atq | awk '{print $1}' | xargs atrm", "system-config"],
    ["ufw deny ssh", "system-config"],
    ["ufw deny 22/tcp", "system-config"],
    ["ufw delete allow OpenSSH", "system-config"],
    ["ufw default deny incoming", "system-config"],
    ["iptables -I INPUT -j DROP", "system-config"],
    ["iptables -A INPUT -p tcp --dport 22 -j REJECT", "system-config"],
    ["iptables -A INPUT -p tcp --dport 1:1024 -j DROP", "system-config"],
    ["firewall-cmd --permanent --remove-service=ssh", "system-config"],
    ["firewall-cmd --remove-port 22/tcp", "system-config"],
    ["nmcli connection down eth0", "system-config"],
    ["nmcli dev disconnect eth0", "system-config"],
    ["ip addr flush dev eth0", "system-config"],
    ["ip route del default", "system-config"],
    ["route del default", "system-config"],
    ["chsh -s /usr/sbin/nologin root", "system-config"],
    ["usermod --shell /bin/false root", "system-config"],
    ["sed -i 's/^SELINUX=enforcing/SELINUX=disabled/' /etc/selinux/config", "system-config"],
    ["auditctl -D", "system-config"],
    ["auditctl -e 0", "system-config"],
    ["spctl --master-disable", "system-config"],
    ["csrutil disable", "system-config"],
    ["launchctl bootout gui/501", "system-config"],
    ["launchctl unload -w ~/Library/LaunchAgents/com.me.backup.plist", "system-config"],
    ["schtasks /delete /tn * /f", "system-config"],
    ["Get-ScheduledTask | Unregister-ScheduledTask -Confirm:$false", "system-config"],
    ["killall cron", "kill-all"],
    ["journalctl --vacuum-time=1s", "empty-system-file"],
    ["journalctl --rotate --vacuum-size=1K", "empty-system-file"],
  ],
};

const PASSES: Record<string, string[]> = {
  "scheduler-config": [
    "crontab -u bob -l",
    "crontab -u bob mycron.txt",
    "ufw allow OpenSSH",
    "ufw deny from 203.0.113.4",
    "ufw deny 8080",
    "ufw default allow outgoing",
    "iptables -A INPUT -s 203.0.113.4 -j DROP",
    "iptables -A INPUT -p icmp -j DROP",
    "iptables -A INPUT -p tcp --dport 8080 -j DROP",
    "iptables -A INPUT -m conntrack --ctstate INVALID -j DROP",
    "iptables -A INPUT -p tcp --dport 22 -j ACCEPT",
    "firewall-cmd --remove-service=http --permanent",
    "nmcli con up eth0",
    "ip route add default via 192.0.2.1",
    "ip route del 10.0.0.0/8",
    "ip addr flush dev lo",
    "systemctl set-default graphical.target",
    "systemctl --user stop myapp",
    "systemctl list-units --type=timer",
    "journalctl --vacuum-time=2weeks",
    "journalctl --vacuum-size=500M",
    "chsh -s /bin/zsh",
    "usermod -s /bin/bash root",
    "sv status sshd",
    "sv up sshd",
    "initctl status ssh",
    "auditctl -l",
    "csrutil status",
    "launchctl bootout gui/501/com.me.app",
    "schtasks /delete /tn MyTask /f",
    "atrm 3",
    "killall node",
  ],
};

describe("guard: families of spellings of the weak held-out classes (issue 35 item 5)", () => {
  for (const [kind, lines] of Object.entries(STOPPED)) {
    for (const [line, rule] of lines) {
      test(`${kind}: stops ${JSON.stringify(line)} (${rule})`, () => expect(rulesOf(line)).toContain(rule));
    }
  }
  for (const [kind, lines] of Object.entries(PASSES)) {
    for (const line of lines) test(`${kind}: passes ${JSON.stringify(line)}`, () => expect(rulesOf(line)).toEqual([]));
  }
});
