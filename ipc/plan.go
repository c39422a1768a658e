package ipc

import "sandboxdesk/host"

// Defaults is what a new sandbox gets for every field it leaves empty, if it
// started now: the Add Sandbox dialog's placeholders and `sandboxdesk
// defaults`.
type Defaults struct {
	MemoryMiB    int64 `json:"memoryMiB"`
	CPUs         int   `json:"cpus"`
	DiskMiB      int64 `json:"diskMiB"`
	BudgetMiB    int64 `json:"budgetMiB"`
	CommittedMiB int64 `json:"committedMiB"`
	// Active counts the sandboxes starting or running, not the newcomer.
	Active int `json:"active"`
	// StoredMemoryMiB is the default memory kept in Settings, which
	// MemoryMiB then is; 0 while the default shares the budget.
	StoredMemoryMiB int64 `json:"storedMemoryMiB,omitempty"`
}

// Size is a sandbox's shape as far as the capacity rule cares.
type Size struct {
	CPUs      int   `json:"cpus"`
	MemoryMiB int64 `json:"memoryMiB"`
	DiskMiB   int64 `json:"diskMiB"`
}

// Recommended is how many sandboxes of one size this host carries.
type Recommended struct {
	AtOnce   int `json:"atOnce"`
	Retained int `json:"retained"`
}

// Capacity is `sandboxdesk capacity`: the host measured, the size assumed,
// and what follows from them.
type Capacity struct {
	Host        host.Info   `json:"host"`
	Size        Size        `json:"size"`
	Checkpoints bool        `json:"checkpoints"`
	Recommended Recommended `json:"recommended"`
}
