# make formal: the Yosys proofs of constraints/formal/*.ys (sat -tempinduct) through
# scripts/formal.sh; a *.fail.ys is a control that must fail. Logs in build/formal/.
# Included by the Makefile.

.PHONY: formal
formal: | $(SETUP) ## prove the formal invariants (yosys sat -tempinduct), logs in build/formal/
	FORMAL_OUT=$(B)/formal bash scripts/formal.sh
