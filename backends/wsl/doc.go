// Package wsl is the Windows sandbox backend: one WSL 2 distro per
// sandbox, imported from a root filesystem tarball and driven only
// through wsl.exe. The backend takes the path of wsl.exe, so everything
// here but the few calls Windows alone offers runs on any platform, and
// tests drive it against the fake wsl.exe in fakewsl.
//
// What a sandbox is kept from: the distro is imported with an
// /etc/wsl.conf that turns off WSL's automount of the Windows drives and
// its interop (running Windows programs as the user), and an /etc/fstab
// that mounts only the sandbox's workspace folder at /workspace. Without
// them any WSL distro reads and writes every file of the Windows user.
//
// It does not reserve memory: the WSL utility VM, and its memory limit,
// belong to Windows and are shared by every distro, so a sandbox here
// holds nothing of the controller's budget. Capacity and admission still
// apply to it like to any other backend.
package wsl
