// User code cannot make a Resolved<R>: only a resolver inside toolgate can.
use toolgate::Resolved;

struct Order;

fn main() {
    let _forged = Resolved { resource: Order };
}
