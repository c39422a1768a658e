package main

import (
	"fmt"
	"strings"
)

// winExe describes one Windows program's resources: what Explorer's
// Properties, Task Manager and the Start menu show of it.
type winExe struct {
	Version     string // as git describe prints it
	File        string // its file name, sandboxdesk-app.exe
	Description string // Task Manager's name for it
	Icon        string // the .ico
	Manifest    string // the application manifest
}

// resourceScript is the windres script that gives the program its icon,
// its manifest and its version information.
func (w winExe) resourceScript() string {
	n := parseVersion(w.Version)
	q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	// windres reads backslashes in a file name as escapes
	path := func(p string) string { return q(strings.ReplaceAll(p, `\`, "/")) }
	var b strings.Builder
	fmt.Fprintf(&b, "1 ICON %s\n", path(w.Icon))
	// 24 is RT_MANIFEST, 1 the manifest a process is started with
	fmt.Fprintf(&b, "1 24 %s\n", path(w.Manifest))
	fmt.Fprintf(&b, `1 VERSIONINFO
FILEVERSION %[1]s
PRODUCTVERSION %[1]s
FILEFLAGSMASK 0x3f
FILEFLAGS 0x0
FILEOS 0x40004
FILETYPE 0x1
FILESUBTYPE 0x0
BEGIN
	BLOCK "StringFileInfo"
	BEGIN
		BLOCK "040904b0"
		BEGIN
			VALUE "CompanyName", "sandboxdesk"
			VALUE "FileDescription", %[2]s
			VALUE "FileVersion", %[3]s
			VALUE "InternalName", %[4]s
			VALUE "OriginalFilename", %[5]s
			VALUE "ProductName", "sandboxdesk"
			VALUE "ProductVersion", %[3]s
		END
	END
	BLOCK "VarFileInfo"
	BEGIN
		VALUE "Translation", 0x409, 1200
	END
END
`, n.windows(","), q(w.Description), q(w.Version), q(strings.TrimSuffix(w.File, ".exe")), q(w.File))
	return b.String()
}

// manifest is the application manifest both programs carry: they run as
// the user who starts them (never elevated: the install is per user),
// on Windows 10 and 11, drawing at each monitor's own scale as the
// window library does.
const manifest = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<assembly xmlns="urn:schemas-microsoft-com:asm.v1" manifestVersion="1.0">
  <trustInfo xmlns="urn:schemas-microsoft-com:asm.v3">
    <security>
      <requestedPrivileges>
        <requestedExecutionLevel level="asInvoker" uiAccess="false"/>
      </requestedPrivileges>
    </security>
  </trustInfo>
  <compatibility xmlns="urn:schemas-microsoft-com:compatibility.v1">
    <application>
      <supportedOS Id="{8e0f7a12-bfb3-4fe8-b9a5-48fd50a15a9a}"/>
    </application>
  </compatibility>
  <application xmlns="urn:schemas-microsoft-com:asm.v3">
    <windowsSettings>
      <dpiAware xmlns="http://schemas.microsoft.com/SMI/2005/WindowsSettings">true/pm</dpiAware>
      <dpiAwareness xmlns="http://schemas.microsoft.com/SMI/2016/WindowsSettings">permonitorv2,permonitor</dpiAwareness>
    </windowsSettings>
  </application>
</assembly>
`
