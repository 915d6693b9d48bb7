// MToon's fragment stage as three-vrm 3.5.5 draws it (after bevy_vrm1 0.10's, MIT OR
// Apache-2.0; bindings and uniform `mtoon::types`). Where bevy_vrm1 differs from
// three-vrm, this follows three-vrm, the player VRM files are checked against:
// - the glTF normal map (tangent space, scaled) bends the shading normal;
// - each light's colour and intensity count (lit colour as stored under a light of
//   radiance 1: three's intensity π, Bevy's illuminance π / exposure);
// - N·L is taken in [-1, 1], so the side away from the light is fully shaded;
// - several lights add their light, not their shading factors;
// - ambient light lights the lit colour (three: irradiance × BRDF_Lambert; here the
//   ambient colour × brightness × exposure is the fraction of the lit colour it adds);
// - rim lighting is mixed with the light arriving, matcap is looked up in view space
//   with v downward, a cutout is a plain alpha test;
// - UV scroll and rotation are applied before the texture transform, as three does; the
//   material's speeds carry the scroll and phase reached at the frame's time (written
//   by `avatar::mtoon`'s UV clock, which holds stills at t = 0), not speeds.

#import bevy_pbr::{
    forward_io::{VertexOutput, FragmentOutput},
    pbr_fragment::pbr_input_from_vertex_output,
    mesh_view_types::DIRECTIONAL_LIGHT_FLAGS_SHADOWS_ENABLED_BIT,
    shadows::fetch_directional_shadow,
    mesh_view_bindings::{view, lights},
}
#import mtoon::types::{
    material,
    base_color_texture, base_color_sampler,
    shading_shift_texture, shading_shift_texture_sampler,
    shade_multiply_texture, shade_multiply_texture_sampler,
    rim_multiply_texture, rim_multiply_sampler,
    uv_animation_mask_texture, uv_animation_mask_sampler,
    matcap_texture, matcap_sampler,
    emissive_texture, emissive_sampler,
    normal_map_texture, normal_map_sampler,
    BASE_COLOR_TEXTURE, SHADING_SHIFT_TEXTURE, SHADE_MULTIPLY_TEXTURE, RIM_MAP_TEXTURE,
    UV_ANIMATION_MASK_TEXTURE, MATCAP_TEXTURE, EMISSIVE_TEXTURE, DOUBLE_SIDED,
    ALPHA_MODE_MASK, ALPHA_MODE_BLEND, ALPHA_MODE_ALPHA_TO_COVERAGE,
    NORMAL_MAP_TEXTURE,
}

const PI: f32 = 3.141592653589793;
// UniVRM MToon10's threshold for a fully transparent blended texel.
const MTOON_ALPHA_EPSILON: f32 = 0.0009765625;

fn sample(t: texture_2d<f32>, s: sampler, uv: vec2<f32>) -> vec4<f32> {
    return textureSampleBias(t, s, uv, view.mip_bias);
}

fn has(flag: u32) -> bool {
    return (material.flags & flag) != 0u;
}

fn linearstep(a: f32, b: f32, t: f32) -> f32 {
    return saturate((t - a) / (b - a));
}

// three-vrm: rotation by phase × mask about the middle, then scroll × mask.
fn animated_uv(uv: vec2<f32>) -> vec2<f32> {
    var mask = 1.0;
    if has(UV_ANIMATION_MASK_TEXTURE) {
        mask = sample(uv_animation_mask_texture, uv_animation_mask_sampler, uv).b;
    }
    let phase = material.uv_animation_rotation_speed * mask;
    let c = cos(phase);
    let s = sin(phase);
    let rotated = mat2x2(c, -s, s, c) * (uv - vec2(0.5)) + vec2(0.5);
    let scroll = vec2(material.uv_animation_scroll_speed_x, material.uv_animation_rotation_speed_y);
    return rotated + scroll * mask;
}

@fragment
fn fragment(
    in: VertexOutput,
    @builtin(front_facing) is_front: bool,
) -> FragmentOutput {
#ifdef OUTLINE_PASS
    // No hull where the outline mode is none.
    if material.outline_flags == 0u {
        discard;
    }
#endif
    let uv = (material.uv_transform * vec3(animated_uv(in.uv), 1.0)).xy;
    let pbr = pbr_input_from_vertex_output(in, is_front, has(DOUBLE_SIDED));
    var normal = pbr.N;
#ifdef VERTEX_TANGENTS
#ifndef OUTLINE_PASS
    if has(NORMAL_MAP_TEXTURE) {
        // Bevy's MikkTSpace frame (the loader makes tangents where a file has none),
        // turned round with the face on a double-sided back face, as Bevy's PBR does.
        let n = normalize(in.world_normal);
        let t = normalize(in.world_tangent.xyz);
        let b = in.world_tangent.w * cross(n, t);
        var nt = sample(normal_map_texture, normal_map_sampler, uv).rgb * 2.0 - 1.0;
        nt = vec3(nt.xy * material.normal_scale, nt.z);
        normal = normalize(nt.x * t + nt.y * b + nt.z * n);
        if has(DOUBLE_SIDED) && !is_front {
            normal = -normal;
        }
    }
#endif
#endif
    let to_eye = pbr.V;

    var lit = material.base_color;
    if has(BASE_COLOR_TEXTURE) {
        lit *= sample(base_color_texture, base_color_sampler, uv);
    }
    if has(ALPHA_MODE_MASK) || has(ALPHA_MODE_ALPHA_TO_COVERAGE) {
        if lit.a < material.alpha_cutoff {
            discard;
        }
        lit.a = 1.0;
    } else if has(ALPHA_MODE_BLEND) {
        if lit.a < MTOON_ALPHA_EPSILON {
            discard;
        }
    } else {
        lit.a = 1.0;
    }
#ifdef OUTLINE_PASS
    lit.a = select(lit.a, 1.0, has(ALPHA_MODE_BLEND));
#endif

    var shade = material.shade_color.rgb;
    if has(SHADE_MULTIPLY_TEXTURE) {
        shade *= sample(shade_multiply_texture, shade_multiply_texture_sampler, uv).rgb;
    }
    var shift = material.shading_shift_factor;
    if has(SHADING_SHIFT_TEXTURE) {
        shift += sample(shading_shift_texture, shading_shift_texture_sampler, uv).r
            * material.shading_shift_texture_scale;
    }

    // Direct light: toon shading per light, times the light's radiance.
    let toony = material.shading_toony_factor;
    var direct = vec3(0.0);
    var arriving = vec3(0.0); // three's directSpecular: the light rim lighting mixes in
    let view_z = dot(vec4<f32>(
        view.view_from_world[0].z,
        view.view_from_world[1].z,
        view.view_from_world[2].z,
        view.view_from_world[3].z,
    ), in.world_position);
    for (var i: u32 = 0u; i < lights.n_directional_lights; i = i + 1u) {
        let light = &lights.directional_lights[i];
        let radiance = (*light).color.rgb * view.exposure;
        let n_dot_l = clamp(dot(normal, (*light).direction_to_light), -1.0, 1.0);
        var shadow = 1.0;
        if ((*light).flags & DIRECTIONAL_LIGHT_FLAGS_SHADOWS_ENABLED_BIT) != 0u {
            shadow = fetch_directional_shadow(i, in.world_position, normal, view_z, pbr.frag_coord.xy);
        }
        let shading = linearstep(-1.0 + toony, 1.0 - toony, n_dot_l + shift) * shadow;
        direct += radiance / PI * mix(shade, lit.rgb, shading);
        arriving += radiance / PI;
    }
    let ambient = lights.ambient_color.rgb * view.exposure;
    arriving += ambient;
    var color = direct + ambient * lit.rgb;

    // Rim: parametric rim and matcap, in view space, as three-vrm computes them.
    let view_dir = normalize((view.view_from_world * vec4(to_eye, 0.0)).xyz);
    let view_normal = normalize((view.view_from_world * vec4(normal, 0.0)).xyz);
    var rim = material.parametric_rim_color.rgb * pow(
        saturate(1.0 - dot(view_dir, view_normal) + material.parametric_rim_lift_factor),
        max(material.parametric_rim_fresnel_power, 0.0001),
    );
    if has(MATCAP_TEXTURE) {
        let x = normalize(vec3(view_dir.z, 0.0, -view_dir.x));
        let y = cross(view_dir, x);
        let sphere_uv = vec2(0.5) + 0.5 * vec2(dot(x, view_normal), -dot(y, view_normal));
        rim += material.mat_cap_color.rgb * sample(matcap_texture, matcap_sampler, sphere_uv).rgb;
    }
    if has(RIM_MAP_TEXTURE) {
        rim *= sample(rim_multiply_texture, rim_multiply_sampler, uv).rgb;
    }
    color += mix(vec3(1.0), arriving, material.rim_lighting_mix_factor) * rim;

    var emissive = material.emissive_color.rgb;
    if has(EMISSIVE_TEXTURE) {
        emissive *= sample(emissive_texture, emissive_sampler, uv).rgb;
    }
    color += emissive;

#ifdef OUTLINE_PASS
    color = material.outline_color.rgb * mix(vec3(1.0), color, material.outline_lighting_mix_factor);
#endif
    var out: FragmentOutput;
    out.color = vec4(color, lit.a);
    return out;
}
