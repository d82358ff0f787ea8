//go:build windows

package layers

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows/registry"
)

// ReadOSManaged reads HKLM\SOFTWARE\Policies\OceanCode (the 64-bit view),
// which only administrators can write: Managed and Requirements as REG_SZ,
// TrustedKeys as REG_MULTI_SZ or REG_SZ. A missing key is ErrNoOSManaged.
func ReadOSManaged() (*OSManaged, error) {
	source := `HKLM\` + PolicyRegistryKey
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, PolicyRegistryKey, registry.QUERY_VALUE|registry.WOW64_64KEY)
	if errors.Is(err, registry.ErrNotExist) {
		return nil, fmt.Errorf("layers: %s: %w", source, ErrNoOSManaged)
	}
	if err != nil {
		return nil, fmt.Errorf("layers: open %s: %w", source, err)
	}
	defer k.Close()
	str := func(name string) (*string, error) {
		v, _, err := k.GetStringValue(name)
		if errors.Is(err, registry.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("layers: %s\\%s: %w (want REG_SZ)", source, name, err)
		}
		return &v, nil
	}
	managed, err := str(OSValueManaged)
	if err != nil {
		return nil, err
	}
	reqs, err := str(OSValueRequirements)
	if err != nil {
		return nil, err
	}
	keys, _, err := k.GetStringsValue(OSValueTrustedKeys)
	if errors.Is(err, registry.ErrUnexpectedType) {
		var one *string
		if one, err = str(OSValueTrustedKeys); one != nil {
			keys = []string{*one}
		}
	}
	if err != nil && !errors.Is(err, registry.ErrNotExist) {
		return nil, fmt.Errorf("layers: %s\\%s: %w (want REG_MULTI_SZ)", source, OSValueTrustedKeys, err)
	}
	if managed == nil && reqs == nil && keys == nil {
		return nil, fmt.Errorf("layers: %s: %w", source, ErrNoOSManaged)
	}
	return FromRegistryValues(source, managed, reqs, keys), nil
}
