// Package rules holds the pure rules every layer must answer alike: the
// memory budget and a newcomer's share of it, the recommended capacity of
// a host, the fixed ranges a person may type for each kind of sandbox,
// and where a root folder is. The controller decides with them; the CLI
// answers what-if questions (defaults, capacity) with them without a
// controller; clients find a root with them.
//
// It keeps no state and drives nothing: no database, no backend, no
// transport. Its only inputs are measurements (package host) and values.
package rules
