// Opening a library runs its initialisers and trusts its prototypes: `unsafe`.
fn main() {
    let _ = cudart13::Library::open("libcudart.so.13");
}
