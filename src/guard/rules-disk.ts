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
const PARTED_DESTROYS = /^(mklabel|mktable|rm)$/;
const CRYPTSETUP_ERASES = /^(luksFormat|erase|luksErase)$/;
/** Options of the fdisk family that only print the table (or the version). */
const FDISK_READS = /^(-[lsdVvJ]|--(list|list-free|show-size|dump|json|version|help|verify|backup-pt-sectors))$/;
/** Volume managers and drive firmware: `zpool destroy tank`, `lvremove vg/lv`, `nvme format /dev/nvme0`. */
const VOLUME_DESTROYS: Record<string, RegExp> = {
  zpool: /^(destroy|labelclear)$/,
  zfs: /^destroy$/,
  nvme: /^(format|sanitize)$/,
};
const VOLUME_REMOVERS = new Set(["lvremove", "vgremove", "pvremove"]);
const HDPARM_ERASES = /^--(security-erase(-enhanced)?|trim-sector-ranges)$/;

/** A partitioner fed its commands (a pipe, here-string or `<` file): `echo -e 'o\nw' | fdisk /dev/sda`. */
function scriptedPartitioner({ inv, index }: RuleInput): boolean {
  const [program = "", ...args] = inv.argv;
  if (!/^(fdisk|gdisk|sfdisk)$/.test(program) || args.some((a) => FDISK_READS.test(a))) return false;
  // sfdisk always reads its new layout (or --delete removes partitions); fdisk/gdisk need a script.
  const fed = index > 0 || inv.source.stdin !== null || inv.source.redirects.some((r) => r.op === "<");
  return program === "sfdisk" || fed;
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
      return o.long.has("zero-superblock");
    case "hdparm":
      return args.some((a) => HDPARM_ERASES.test(a));
    default:
      return scriptedPartitioner(input);
  }
}

function volumeDestroyed(program: string, args: string[]): string | null {
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
