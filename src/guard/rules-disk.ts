/**
 * The `wipe-device` rule: tools that destroy what a disk holds without writing a file system —
 * shred/wipefs/blkdiscard of a device, partition tables relabelled, zapped or rewritten by a script
 * (`parted mklabel`, `sgdisk --zap-all`, `echo … | fdisk /dev/sda`, `sfdisk /dev/sda < layout`),
 * encryption headers written over, volumes and pools destroyed (`zpool destroy`, `lvremove`),
 * drives erased by their firmware (`nvme format`, `hdparm --security-erase`).
 */
import type { Rule, RuleInput } from "./rule-types.ts";
import type { RuleContext } from "./rule-types.ts";
import { isDevicePath } from "./judged-paths.ts";
import { options } from "./options.ts";

/** sgdisk's options that destroy the partition table: -Z/--zap-all, -z/--zap, -o/--clear. */
const SGDISK_ZAPS = /^(-[a-zA-Z]*[Zzo][a-zA-Z]*|--zap(-all)?|--clear)$/;
/** parted commands that replace the table or delete a partition. */
const PARTED_DESTROYS = /^(mklabel|mktable|rm|mkpart|mkpartfs|resizepart|resize|move)$/;
const CRYPTSETUP_ERASES = /^(luksFormat|erase|luksErase|luksKillSlot|luksRemoveKey|reencrypt)$/;
/** Options of the fdisk family that only print the table (or the version). */
const FDISK_READS = /^(-[lsdVvJ]|--(list|list-free|show-size|dump|json|version|help|verify|backup-pt-sectors))$/;
/** Volume managers and drive firmware: `zpool destroy tank`, `lvremove vg/lv`, `nvme format /dev/nvme0`. */
const VOLUME_DESTROYS: Record<string, RegExp> = {
  zpool: /^(destroy|labelclear)$/,
  zfs: /^(destroy|rollback)$/,
  nvme: /^(format|sanitize)$/,
};
const VOLUME_REMOVERS = new Set(["lvremove", "vgremove", "pvremove", "lvreduce"]);
const HDPARM_ERASES = /^--(security-erase(-enhanced)?|trim-sector-ranges)$/;

/** A partitioner fed its commands (a pipe, here-string or `<` file): `echo -e 'o\nw' | fdisk /dev/sda`. */
function scriptedPartitioner({ inv, index }: RuleInput): boolean {
  const [program = "", ...args] = inv.argv;
  if (!/^(fdisk|gdisk|sfdisk|cfdisk|cgdisk)$/.test(program) || args.some((a) => FDISK_READS.test(a))) return false;
  // sfdisk always reads its new layout (or --delete removes partitions); fdisk/gdisk, fed a script
  // or opened on the terminal, write the table they are told to (an agent answers their prompts).
  const fed = index > 0 || inv.source.stdin !== null || inv.source.redirects.some((r) => r.op === "<");
  return program === "sfdisk" || fed || args.length > 0;
}

/** Does this invocation destroy a device's contents, by which tool? */
function destroysDevice(input: RuleInput): boolean {
  const [program = "", ...args] = input.inv.argv;
  const o = options(args);
  switch (program) {
    case "shred":
    case "blkdiscard":
      return true;
    case "wipefs":
      // Without -a (or -o OFFSET) wipefs only lists the signatures; -n does nothing.
      return (
        (o.short.has("a") || o.long.has("all") || o.short.has("o") || o.long.has("offset")) &&
        !(o.short.has("n") || o.long.has("no-act"))
      );
    case "sgdisk":
      return args.some((a) => SGDISK_ZAPS.test(a));
    case "parted":
      return args.some((a) => PARTED_DESTROYS.test(a));
    case "cryptsetup":
      return args.some((a) => CRYPTSETUP_ERASES.test(a));
    case "badblocks":
      return o.short.has("w");
    case "mdadm":
      return o.long.has("zero-superblock") || o.long.has("stop") || o.long.has("remove") || o.long.has("fail");
    case "ddrescue":
    case "truncate":
      return true;
    // A repair that answers yes to every fix, a journal removed, a file system opened for writing.
    case "fsck":
    case "e2fsck":
    case "xfs_repair":
      return (
        !(o.short.has("n") || o.long.has("dry-run")) &&
        (o.short.has("y") || o.short.has("f") || program === "xfs_repair")
      );
    case "tune2fs":
      return args.some((a) => a.includes("^has_journal"));
    case "debugfs":
      return o.short.has("w");
    case "resize2fs":
      return o.operands.length > 1;
    case "pvcreate":
      return o.short.has("f");
    case "sg_format":
      return o.long.has("format");
    case "hdparm":
      return args.some((a) => HDPARM_ERASES.test(a));
    default:
      return scriptedPartitioner(input);
  }
}

/** Tools that erase a whole disk or every mapping by name, with no device path: macOS, BSD, Windows, firmware. */
function diskErasedByName(program: string, args: string[]): string | null {
  const verb = args.find((a) => !a.startsWith("-")) ?? "";
  if (program === "diskutil" && /^(erase|zero|random|secureErase|partitionDisk|reformat)/i.test(verb)) {
    return `diskutil ${verb} erases the disk`;
  }
  if (program === "gpart" && /^(destroy|delete)$/.test(verb)) return `gpart ${verb} removes the partition table`;
  if (program.toLowerCase() === "format" && /^[a-z]:$/i.test(verb)) return `format ${verb} erases the drive`;
  if (program === "dmsetup" && /^(remove_all|wipe_table)$/.test(verb)) return `dmsetup ${verb} tears down the mappings`;
  if (program === "losetup" && args.some((a) => a === "-D" || a === "--detach-all"))
    return "losetup -D detaches every loop device";
  if (program === "flashrom" && args.some((a) => /^(-w|--write|-E|--erase)$/.test(a)))
    return "flashrom rewrites the firmware";
  if (program === "vgreduce" && args.includes("--removemissing") && args.includes("--force")) {
    return "vgreduce --removemissing --force drops the volumes on the missing disk";
  }
  // `lvresize -L -10G`: a shrink that cuts off the end of the file system.
  const size = args.find((a, i) => /^(-L|--size)$/.test(args[i - 1] ?? "") || /^--size=/.test(a));
  if ((program === "lvresize" || program === "lvextend") && size?.replace(/^--size=/, "").startsWith("-")) {
    return `${program} shrinks the volume under its file system`;
  }
  return null;
}

/** Mount points the system runs from: mounting over one hides it, unmounting one pulls it away. */
const SYSTEM_MOUNT = /^\/(etc|usr|boot|bin|sbin|lib|var)?\/?$/;

/** `mount /dev/sdb1 /`, `mount --bind /tmp /etc`, `umount -l /`, `mount -o remount,ro /`. */
function mountReplaced(program: string, args: string[]): string | null {
  const o = options(args.filter((_a, i) => !/^(-o|-t|--options|--types)$/.test(args[i - 1] ?? "")));
  const target = o.operands[o.operands.length - 1];
  if (program === "umount" && o.operands.some((w) => SYSTEM_MOUNT.test(w))) return `umount pulls ${o.operands[0]} away`;
  if (program !== "mount" || target === undefined || !SYSTEM_MOUNT.test(target)) return null;
  const readOnly = args.some((a, i) => args[i - 1] === "-o" && /\bro\b/.test(a));
  if (o.operands.length >= 2 || readOnly) return `mount over ${target}: the system's files are hidden or read-only`;
  return null;
}

function volumeDestroyed(program: string, args: string[]): string | null {
  const byName = diskErasedByName(program, args) ?? mountReplaced(program, args);
  if (byName) return byName;
  if (VOLUME_REMOVERS.has(program)) return `${program} deletes the volume and everything on it`;
  const verb = args.find((a) => !a.startsWith("-"));
  const destroys = VOLUME_DESTROYS[program];
  return destroys && verb !== undefined && destroys.test(verb) ? `${program} ${verb} destroys what it holds` : null;
}

export const WIPE_DEVICE_RULE: Rule = {
  id: "wipe-device",
  summary:
    "destroying a device's data: shred, wipefs -a, blkdiscard, sgdisk --zap-all, parted mklabel/rm, " +
    "a scripted fdisk/gdisk/sfdisk, cryptsetup luksFormat, zpool/zfs destroy, lvremove, nvme format",
  check(input, ctx: RuleContext) {
    const [program = "", ...args] = input.inv.argv;
    const volume = volumeDestroyed(program, args);
    if (volume) return volume;
    if (!destroysDevice(input)) return null;
    const device = args.find((a) => !a.startsWith("-") && isDevicePath(a, ctx));
    return device ? `${program} destroys the data on ${device}` : null;
  },
};
