// A texture object is a plain integer, yet destroying one a `TextureObject` owns is undefined
// behaviour: `unsafe` by rule.
fn main() {
    let _ = cudart13::api::destroy_texture_object(0);
}
