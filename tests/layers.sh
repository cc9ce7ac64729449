#!/usr/bin/env bash
# tests/layers.sh - the layer gate (issue 27): for each component with a
# LAYERS file, compare what each object file calls (`nm -u`) with the order
# that file gives, and fail on a call upward (or within a layer to a file
# listed later), naming the calling file, the symbol, the file defining it
# and both layers. Lines `allow FILE SYMBOL: REASON` in a LAYERS file name
# known exceptions: each is printed with its reason and not counted as a
# failure; an exception that no longer happens is a failure (remove it).
# Every object of the component must be listed, and every listed file built.
# Lines `callers SYMBOL: FILE...` say which files alone may call SYMBOL.
# Lines `locks NAME: FILE...` say which files alone may take lock NAME
# (pthread_mutex_lock/trylock of an expression ending in NAME); any other
# file of the component that takes it fails the gate.
#
# Usage: tests/layers.sh [DIR...]   (default: every DIR/LAYERS below)
# Needs the objects of `make all` (build/obj/DIR/*.o).
# Ends with "N passed, N failed" (one case per component).
set -u
cd "$(dirname "$0")/.."
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
  dirs=(src simdevice/plugin simdevice/server simdevice/runtime plugins/cuda)
  # built only where Open MPI's mpicc is (mk/mpi.mk)
  command -v "${MPICC:-mpicc}" >/dev/null && dirs+=(simdevice/mpi)
fi
passed=0 failed=0

# One component: prints its findings, returns 1 on a failure.
check_dir() { # dir
  local dir=$1 obj=build/obj/$1 layers=$1/LAYERS
  [ -f "$layers" ] || { echo "FAIL  $dir: no $layers"; return 1; }
  compgen -G "$obj/*.o" >/dev/null || { echo "FAIL  $dir: no objects in $obj (run make all)"; return 1; }
  local calls
  calls=$(mktemp)
  # "caller symbol callee" for every undefined symbol another object
  # defines. One nm per list (nm -A names each line's object): a few
  # processes per component, not several per object file, which cost 2
  # minutes of make check on a machine where a process start is slow.
  {
    nm -A --defined-only -g "$obj"/*.o | sed 's/^/D /'
    nm -A -u "$obj"/*.o | sed 's/^/U /'
  } | awk '
    { f = $2; sub(/:.*/, "", f); sub(/.*\//, "", f); sub(/\.o$/, "", f) }
    $1 == "D" && NF == 4 { defined[$4] = defined[$4] " " f; next }
    $1 == "U" { wanted[f " " $NF] = 1 }
    END {
      for (k in wanted) {
        split(k, w, " ")
        n = split(defined[w[2]], by, " ")
        for (i = 1; i <= n; i++) if (by[i] != w[1]) print w[1], w[2], by[i]
      }
    }' | sort >"$calls"
  local objects
  objects=$(cd "$obj" && ls -- *.o | sed 's/\.o$//')
  awk -v dir="$dir" -v objects="$objects" '
    FNR == NR {
      if ($1 == "layer") {
        name = $2; sub(/:$/, "", name)
        for (i = 3; i <= NF; i++) { rank[$i] = ++n; layer[$i] = name; listed[n] = $i }
      } else if ($1 == "callers") {
        sym = $2; sub(/:$/, "", sym)
        only[sym] = " " substr($0, index($0, ":") + 1) " "
      } else if ($1 == "allow") {
        sym = $3; sub(/:$/, "", sym)
        reason = $0; sub(/^[^:]*: */, "", reason)
        allow[$2 " " sym] = reason; used[$2 " " sym] = 0
      }
      next
    }
    {
      caller = $1; sym = $2; callee = $3
      if ((sym in only) && index(only[sym], " " caller " ") == 0) {
        printf "CALLER %s/%s.c calls %s, which only%smay call (LAYERS)\n",
               dir, caller, sym, only[sym]; bad++
      }
      if (!(caller in rank) || !(callee in rank)) next
      if (rank[callee] < rank[caller]) next
      key = caller " " sym
      where = sprintf("%s/%s.c (layer %s) calls %s, defined in %s/%s.c (layer %s)",
                      dir, caller, layer[caller], sym, dir, callee, layer[callee])
      if (key in allow) {
        used[key] = 1
        printf "known %s: %s\n", where, allow[key]
      } else {
        printf "UPWARD %s\n", where; bad++
      }
    }
    END {
      split(objects, objs, "\n")
      for (i in objs) if (objs[i] != "" && !(objs[i] in rank)) {
        printf "UNLISTED %s/%s.c is in no layer of %s/LAYERS\n", dir, objs[i], dir; bad++
      }
      for (i in objs) built[objs[i]] = 1
      for (i = 1; i <= n; i++) if (!(listed[i] in built)) {
        printf "MISSING %s/LAYERS lists %s, which has no object\n", dir, listed[i]; bad++
      }
      for (k in used) if (!used[k]) {
        printf "STALE %s/LAYERS allows \"%s\", which no longer happens\n", dir, k; bad++
      }
      exit bad > 0
    }' "$layers" "$calls"
  local rc=$?
  rm -f "$calls"
  check_locks "$dir" "$layers" || rc=1
  return $rc
}

# The `locks` lines of a LAYERS file: 0, or 1 after naming each file that
# takes a lock it may not.
check_locks() { # dir, layers file
  local dir=$1 layers=$2 rc=0 name files f
  while read -r name files; do
    name=${name%:}
    for f in $(grep -lE "pthread_mutex_(try)?lock\(&[^)]*${name//./\\.}\)" "$dir"/*.c 2>/dev/null); do
      f=$(basename "$f" .c)
      case " $files " in *" $f "*) ;; *)
        echo "LOCK $dir/$f.c takes $name, which only $files may take (LAYERS)"; rc=1 ;;
      esac
    done
  done < <(sed -n 's/^locks //p' "$layers")
  return $rc
}

for d in "${dirs[@]}"; do
  if check_dir "$d"; then
    passed=$((passed + 1)); echo "ok    layers of $d"
  else
    failed=$((failed + 1)); echo "FAIL  layers of $d"
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
