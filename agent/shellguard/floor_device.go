package shellguard

// Floor rules for tools that write onto a block device or a partition
// table.

import "strings"

// deviceTool: programs that overwrite, discard or repartition a block
// device, and copies onto one.
func (w *walker) deviceTool(name string, argv []word, cwd string) string {
	if rule := deviceRules[name]; rule != nil {
		return rule(name, argv, cwd)
	}
	return ""
}

// deviceRules maps a program to the rule that says why it writes onto a
// device ("" when it does not).
var deviceRules = map[string]func(name string, argv []word, cwd string) string{
	"tee": deviceTee,
	"cp":  deviceCopy, "mv": deviceCopy, "install": deviceCopy, "ddrescue": deviceCopy, "dcfldd": deviceCopy, "pv": deviceCopy,
	"shred": deviceOverwrite, "blkdiscard": deviceOverwrite, "badblocks": deviceOverwrite,
	"fdisk": devicePartition, "sfdisk": devicePartition, "sgdisk": devicePartition, "gdisk": devicePartition, "cgdisk": devicePartition,
	"cfdisk": devicePartition, "parted": devicePartition, "partx": devicePartition, "kpartx": devicePartition,
	"nvme":       deviceNvme,
	"cryptsetup": deviceCryptsetup,
	"hdparm":     deviceHdparm,
	"pvcreate":   deviceVolume, "pvremove": deviceVolume, "zpool": deviceVolume, "mdadm": deviceVolume, "wipe": deviceVolume, "mkfs.zfs": deviceVolume,
}

// deviceOf returns the device a literal operand names, or "".
func deviceOf(a word, cwd string) string {
	if !a.known || strings.HasPrefix(a.val, "-") {
		return ""
	}
	if t := resolveIn(a.val, cwd); t != "" && isDevice(t) {
		return t
	}
	return ""
}

// operands returns the words of argv[1:] that are not options.
func operands(argv []word) []word {
	var ops []word
	for _, a := range argv[1:] {
		if !(a.known && strings.HasPrefix(a.val, "-") && len(a.val) > 1) {
			ops = append(ops, a)
		}
	}
	return ops
}

// firstDevice returns the first device among ws, or "".
func firstDevice(ws []word, cwd string) string {
	for _, a := range ws {
		if t := deviceOf(a, cwd); t != "" {
			return t
		}
	}
	return ""
}

func deviceTee(_ string, argv []word, cwd string) string {
	if t := firstDevice(argv[1:], cwd); t != "" {
		return "writes onto device " + t
	}
	return ""
}

// deviceCopy: a copy whose destination (the last operand, -t DIR,
// ddrescue's second operand, any pv operand) is a device.
func deviceCopy(name string, argv []word, cwd string) string {
	ops := operands(argv)
	for i, a := range argv[1:] {
		if a.known && (a.val == "-t" || a.val == "--target-directory") && i+2 < len(argv) {
			ops = append(ops, argv[i+2])
		} else if a.known && strings.HasPrefix(a.val, "--target-directory=") {
			v := a.val[len("--target-directory="):]
			ops = append(ops, word{val: v, text: v, known: true})
		}
	}
	if name == "ddrescue" && len(ops) >= 2 {
		ops = ops[1:2]
	} else if len(ops) > 0 && name != "pv" {
		ops = ops[len(ops)-1:]
	}
	if t := firstDevice(ops, cwd); t != "" {
		return "writes onto device " + t
	}
	return ""
}

var overwriteVerb = map[string]string{"shred": "overwrites device ", "blkdiscard": "discards every block of device ", "badblocks": "overwrites device "}

func deviceOverwrite(name string, argv []word, cwd string) string {
	if name == "badblocks" && !hasOpt(argv, "wn") {
		return ""
	}
	ops := operands(argv)
	if t := firstDevice(ops, cwd); t != "" {
		return overwriteVerb[name] + t
	}
	if name == "blkdiscard" && len(ops) > 0 {
		return "discards every block of a device"
	}
	return ""
}

func devicePartition(name string, argv []word, cwd string) string {
	if partitionListing(name, argv) {
		return ""
	}
	ops := operands(argv)
	if t := firstDevice(ops, cwd); t != "" {
		return "repartitions device " + t
	}
	if name != "partx" && name != "kpartx" {
		for _, a := range ops {
			if !a.known {
				return "repartitions a device"
			}
		}
	}
	return ""
}

var nvmeErase = map[string]bool{"format": true, "sanitize": true, "write": true, "write-zeroes": true, "dsm": true, "write-uncor": true}

func deviceNvme(_ string, argv []word, _ string) string {
	if len(argv) > 1 && nvmeErase[argv[1].val] {
		return "erases or overwrites an NVMe device (nvme " + argv[1].val + ")"
	}
	return ""
}

var cryptsetupErase = map[string]bool{"luksformat": true, "erase": true, "lukserase": true, "reencrypt": true}

func deviceCryptsetup(_ string, argv []word, _ string) string {
	for _, a := range argv[1:] {
		if cryptsetupErase[strings.ToLower(a.val)] {
			return "destroys the data on a device (cryptsetup " + a.val + ")"
		}
	}
	return ""
}

func deviceHdparm(_ string, argv []word, _ string) string {
	if hasOpt(argv, "", "security-erase", "security-erase-enhanced", "trim-sector-ranges", "trim-sector-ranges-stdin", "write-sector", "make-bad-sector") {
		return "erases or overwrites a disk (hdparm)"
	}
	return ""
}

// deviceVolume: volume managers that label or wipe a device named on the
// command line (pvremove /dev/sda, zpool create tank /dev/sdb, mdadm
// --create … /dev/sdX, mdadm --zero-superblock /dev/sdX).
func deviceVolume(name string, argv []word, cwd string) string {
	if name == "zpool" && (len(argv) < 2 || argv[1].val != "create" && argv[1].val != "labelclear" && argv[1].val != "add" && argv[1].val != "attach" && argv[1].val != "replace") {
		return ""
	}
	if name == "mdadm" && !hasOpt(argv, "CG", "create", "zero-superblock", "grow", "build") {
		return ""
	}
	if t := firstDevice(operands(argv), cwd); t != "" {
		return "writes a volume label onto device " + t + " (" + name + ")"
	}
	return ""
}

// partitionListing reports whether a partitioning tool only lists (fdisk -l,
// sfdisk -l/-d/-J, sgdisk -p, parted -l or parted DEV print).
func partitionListing(name string, argv []word) bool {
	switch name {
	case "fdisk", "gdisk":
		return hasOpt(argv, "l", "list")
	case "sfdisk":
		return hasOpt(argv, "ldJFsVg", "list", "dump", "json", "list-free", "show-size", "verify", "show-geometry", "list-types")
	case "sgdisk":
		for _, a := range argv[1:] {
			if !a.known {
				return false
			}
			v := a.val
			switch {
			case v == "-p" || v == "--print" || v == "-v" || v == "--verify" || v == "-O" || v == "--print-mbr" || v == "-L" || v == "--list-types" || v == "-P" || v == "--pretend":
			case strings.HasPrefix(v, "-i") || strings.HasPrefix(v, "--info"):
			case !strings.HasPrefix(v, "-"):
			default:
				return false
			}
		}
		return true
	case "parted":
		if hasOpt(argv, "lvh", "list", "version", "help") {
			return true
		}
		seenDev := false
		for _, a := range argv[1:] {
			if !a.known {
				return false
			}
			v := a.val
			if strings.HasPrefix(v, "-") {
				continue
			}
			if !seenDev {
				seenDev = true
				continue
			}
			if v != "print" && v != "p" && v != "unit" && v != "help" && v != "s" && v != "B" && v != "MB" && v != "GB" && v != "MiB" && v != "GiB" && v != "%" && v != "cyl" && v != "chs" && v != "compact" && v != "free" {
				return false
			}
		}
		return true
	case "partx", "kpartx":
		return !hasOpt(argv, "adu", "add", "delete", "update")
	}
	return false
}
