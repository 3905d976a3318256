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
  // Records that are not trees (histories, Terraform state, backups, snapshots, keys generated
  // over), wallets, bare repositories and a .git's insides, mounted disks, a person's own files.
  irreplaceable: [
    ["rm ~/.bash_history", "irreplaceable-delete"],
    ["shred -u ~/.zsh_history", "irreplaceable-delete"],
    ["truncate -s 0 ~/.bash_history", "irreplaceable-delete"],
    ["cat /dev/null > ~/.local/share/fish/fish_history", "irreplaceable-delete"],
    [": > ~/.psql_history", "irreplaceable-delete"],
    ["rm terraform.tfstate", "irreplaceable-delete"],
    ["rm -f infra/terraform.tfstate infra/terraform.tfstate.backup", "irreplaceable-delete"],
    ["rm -rf .terraform terraform.tfstate*", "irreplaceable-delete"],
    ["borg delete /backups/repo", "irreplaceable-delete"],
    ["borg delete --force ssh://nas/./repo::2024-01-01", "irreplaceable-delete"],
    ["snapper -c root delete 1-100", "irreplaceable-delete"],
    ["timeshift --delete-all", "irreplaceable-delete"],
    ["sudo tmutil delete /Volumes/TM/Backups.backupdb/mac/2020-01-01", "irreplaceable-delete"],
    ["vssadmin delete shadows /all /quiet", "irreplaceable-delete"],
    ["btrfs subvolume delete /mnt/snapshots/*", "irreplaceable-delete"],
    ["zfs destroy tank/home@daily-2024", "irreplaceable-delete"],
    ["restic forget --keep-last 0 --prune", "irreplaceable-delete"],
    ["yes | ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519 -N ''", "irreplaceable-delete"],
    ["ssh-keygen -t rsa -f ~/.ssh/id_rsa -N '' <<< y", "irreplaceable-delete"],
    ["security delete-keychain login.keychain", "irreplaceable-delete"],
    ["pass rm -r work", "irreplaceable-delete"],
    ["rm -rf ~/.bitcoin", "irreplaceable-delete"],
    ["rm ~/backup/wallet.dat", "irreplaceable-delete"],
    ["rm -rf ~/.ethereum/keystore", "irreplaceable-delete"],
    ["rm -rf /srv/git/project.git", "irreplaceable-delete"],
    ["rm -rf .git/objects", "irreplaceable-delete"],
    ["rm -rf ../other/.git/refs", "irreplaceable-delete"],
    ["rm -rf /media/dev/Backup", "irreplaceable-delete"],
    ["rm -rf /run/media/dev/usb/photos", "irreplaceable-delete"],
    ["rm ~/Documents/thesis.pdf", "irreplaceable-delete"],
    ["rm -f ~/Desktop/*.docx", "irreplaceable-delete"],
    ["find ~/Pictures -type f -delete", "irreplaceable-delete"],
    ["find ~/Documents -name '*.pdf' -exec rm {} +", "irreplaceable-delete"],
    ["aws kms schedule-key-deletion --key-id abcd --pending-window-in-days 7", "infra-destroy"],
    ["vault kv delete secret/prod", "infra-destroy"],
    ["virsh destroy prod-vm", "infra-destroy"],
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
  irreplaceable: [
    "rm ~/Downloads/x.iso",
    "rm -rf .terraform",
    "terraform state list",
    "borg prune --keep-daily 7 /backups/repo",
    "restic forget --keep-last 10 --prune",
    "snapper list",
    "btrfs subvolume delete /mnt/build/subvol",
    "rm .git/index.lock",
    "rm -f .git/hooks/pre-commit",
    "ls /media/dev/Backup",
    "grep foo ~/.bash_history",
    "cp ~/.bash_history /tmp/hist.bak",
    "ssh-keygen -t ed25519 -f ~/.ssh/new_key -N ''",
    "ssh-keygen -y -f ~/.ssh/id_rsa",
    "yes | ssh-keygen -l -f ~/.ssh/id_rsa.pub",
    "tmutil listbackups",
    "vssadmin list shadows",
    "pass rm work/old-token",
    "rm ~/project/docs/Documents.md",
    "rm -rf /tmp/app.git",
    "cp report.pdf ~/Documents/",
    "aws kms describe-key --key-id abcd",
    "vault kv get secret/prod",
    "virsh list --all",
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
