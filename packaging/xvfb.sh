# Sourced by the scripts that need a display of their own (screenshots,
# the tray check, the package checks).
#
# start_xvfb GEOMETRY starts Xvfb on a display number the server picks
# itself (-displayfd), so two scripts running at once never share one (a
# free lock file is no promise: another server may take the number
# first), and returns once it accepts clients, with XPID its pid and
# XDISPLAY its display (":N"). -noreset: by default an X server resets
# when its last client leaves, and a program connecting during that reset
# fails to open the display (one launch in about twenty-five, between two
# programs run one after the other).
start_xvfb() {
	_xvfb_fd=$(mktemp)
	Xvfb -displayfd 3 -screen 0 "$1" -nolisten tcp -noreset 3>"$_xvfb_fd" >/dev/null 2>&1 &
	XPID=$!
	_xvfb_tries=0
	while [ ! -s "$_xvfb_fd" ]; do
		_xvfb_tries=$((_xvfb_tries + 1))
		if [ "$_xvfb_tries" -gt 300 ] || ! kill -0 "$XPID" 2>/dev/null; then
			rm -f "$_xvfb_fd"
			echo "Xvfb did not start" >&2
			return 1
		fi
		sleep 0.1
	done
	XDISPLAY=":$(head -n 1 "$_xvfb_fd")"
	rm -f "$_xvfb_fd"
}
