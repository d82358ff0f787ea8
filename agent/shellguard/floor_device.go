package shellguard

// Floor rules for tools that write onto a block device or a partition
// table.

import "strings"

// deviceTool: programs that overwrite, discard or repartition a block
// device, and copies onto one.
func (w *walker) deviceTool(name string, argv []word, cwd string) string {
	dev := func(a word) string {
		if !a.known || strings.HasPrefix(a.val, "-") {
			return ""
		}
		if t := resolveIn(a.val, cwd); t != "" && isDevice(t) {
			return t
		}
		return ""
	}
	operands := func() []word {
		var ops []word
		for _, a := range argv[1:] {
			if !(a.known && strings.HasPrefix(a.val, "-") && len(a.val) > 1) {
				ops = append(ops, a)
			}
		}
		return ops
	}
	switch name {
	case "tee":
		for _, a := range argv[1:] {
			if t := dev(a); t != "" {
				return "writes onto device " + t
			}
		}
	case "cp", "mv", "install", "ddrescue", "dcfldd", "pv":
		ops := operands()
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
		for _, a := range ops {
			if t := dev(a); t != "" {
				return "writes onto device " + t
			}
		}
	case "shred", "blkdiscard", "badblocks":
		if name == "badblocks" && !hasOpt(argv, "wn") {
			return ""
		}
		for _, a := range operands() {
			if t := dev(a); t != "" {
				return map[string]string{"shred": "overwrites device ", "blkdiscard": "discards every block of device ", "badblocks": "overwrites device "}[name] + t
			}
		}
		if name == "blkdiscard" && len(operands()) > 0 {
			return "discards every block of a device"
		}
	case "fdisk", "sfdisk", "sgdisk", "gdisk", "cgdisk", "cfdisk", "parted", "partx", "kpartx":
		if partitionListing(name, argv) {
			return ""
		}
		for _, a := range operands() {
			if t := dev(a); t != "" {
				return "repartitions device " + t
			}
		}
		if name != "partx" && name != "kpartx" {
			for _, a := range operands() {
				if !a.known {
					return "repartitions a device"
				}
			}
		}
	case "nvme":
		if len(argv) > 1 {
			switch argv[1].val {
			case "format", "sanitize", "write", "write-zeroes", "dsm", "write-uncor":
				return "erases or overwrites an NVMe device (nvme " + argv[1].val + ")"
			}
		}
	case "cryptsetup":
		for _, a := range argv[1:] {
			switch strings.ToLower(a.val) {
			case "luksformat", "erase", "lukserase", "reencrypt":
				return "destroys the data on a device (cryptsetup " + a.val + ")"
			}
		}
	case "hdparm":
		if hasOpt(argv, "", "security-erase", "security-erase-enhanced", "trim-sector-ranges", "trim-sector-ranges-stdin", "write-sector", "make-bad-sector") {
			return "erases or overwrites a disk (hdparm)"
		}
	case "pvcreate", "pvremove", "zpool", "mdadm", "wipe", "mkfs.zfs":
		// Volume managers that label or wipe a device named on the
		// command line (pvremove /dev/sda, zpool create tank /dev/sdb,
		// mdadm --create … /dev/sdX, mdadm --zero-superblock /dev/sdX).
		if name == "zpool" && (len(argv) < 2 || argv[1].val != "create" && argv[1].val != "labelclear" && argv[1].val != "add" && argv[1].val != "attach" && argv[1].val != "replace") {
			return ""
		}
		if name == "mdadm" && !hasOpt(argv, "CG", "create", "zero-superblock", "grow", "build") {
			return ""
		}
		for _, a := range operands() {
			if t := dev(a); t != "" {
				return "writes a volume label onto device " + t + " (" + name + ")"
			}
		}
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
