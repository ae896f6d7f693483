# shellcheck shell=bash disable=SC2154 # total_s, margin, start, row_width: the sourcing script's
# Sourced by bench/gpu-check.sh and bench/gpu-porep.sh: one time budget for
# a run of steps, and the rows of its summary table. The sourcing script
# sets total_s (the budget), margin (seconds kept for the table at the
# end), start (SECONDS at the start), row_width (the step column's width)
# and, optionally, step_log (a file that also gets the step and skip
# lines).

# step TEXT: a step's heading, with the seconds since the start.
step() {
	printf '== %s (%ds)\n' "$*" $((SECONDS - start)) | tee -a "${step_log:-/dev/null}"
}
# Seconds left of the budget, less the margin.
left() { echo $((total_s - (SECONDS - start) - margin)); }
# cap N: N, or what is left when that is less (at least 1).
cap() {
	local l
	l=$(left)
	if [ "$l" -lt "$1" ]; then
		echo $((l < 1 ? 1 : l))
	else
		echo "$1"
	fi
}
rows=()
# row STEP RESULT DETAIL: a row of the summary table.
row() { rows+=("$(printf "%-${row_width}s %-8s %s" "$1" "$2" "$3")"); }
# fits NAME EST: whether a step estimated at EST s fits what is left;
# otherwise says so and adds a skipped row.
fits() {
	if [ "$(left)" -ge "$2" ]; then
		return 0
	fi
	echo "$1: SKIPPED: estimated $2 s, $(left) s left of the budget" |
		tee -a "${step_log:-/dev/null}"
	row "$1" skipped "estimated $2 s, $(left) s left"
	return 1
}
