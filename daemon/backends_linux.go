package daemon

import (
	"sandboxdesk/backends/bubblewrap"
	"sandboxdesk/controller"
)

func platformBackends(root string) (map[string]controller.Backend, string, error) {
	b, err := bubblewrap.New(bubblewrap.Config{Root: root})
	if err != nil {
		return nil, "", err
	}
	return map[string]controller.Backend{bubblewrap.Name: b}, bubblewrap.Name, nil
}
