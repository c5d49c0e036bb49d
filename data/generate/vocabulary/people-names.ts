/**
 * Given names and family names by naming culture. Countries mix cultures (see `geography.ts`), so a
 * London company has Priya Patel and Tomasz Nowak next to Oliver Bennett, as real contact data does.
 * Names keep their accents (José, Müller, Søren); `asciiSlug` turns them into email/URL-safe text.
 */

export type Culture =
  | 'anglo'
  | 'irish'
  | 'hispanic'
  | 'portuguese'
  | 'german'
  | 'french'
  | 'dutch'
  | 'italian'
  | 'nordic'
  | 'slavic'
  | 'turkish'
  | 'greek'
  | 'arabic'
  | 'african'
  | 'indian'
  | 'chinese'
  | 'japanese'
  | 'korean'
  | 'vietnamese'
  | 'malay';

export interface NameSet {
  female: string[];
  male: string[];
  last: string[];
  /** German-style transliteration in emails (ü → ue) rather than dropping the accent (ü → u). */
  umlautE?: boolean;
}

const w = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

export const NAMES: Record<Culture, NameSet> = {
  anglo: {
    female: w(
      'Emily, Olivia, Sarah, Jessica, Emma, Hannah, Megan, Rachel, Lauren, Amanda, Ashley, Jennifer, Katherine, Elizabeth, Chloe, Grace, Sophie, Charlotte, Amelia, Lucy, Rebecca, Natalie, Victoria, Abigail, Madison, Taylor, Brittany, Danielle, Heather, Melissa, Stephanie, Alexis, Jasmine, Kayla, Morgan, Courtney, Samantha, Allison, Caroline, Claire, Laura, Michelle, Nicole, Kimberly, Andrea, Erin, Kelly, Holly',
    ),
    male: w(
      'James, John, Michael, David, Robert, William, Daniel, Matthew, Christopher, Andrew, Joshua, Ryan, Brandon, Tyler, Justin, Kevin, Brian, Jason, Eric, Thomas, Benjamin, Samuel, Jacob, Nathan, Alexander, Oliver, Harry, George, Jack, Charlie, Edward, Henry, Luke, Adam, Mark, Paul, Steven, Scott, Jeffrey, Gregory, Patrick, Jonathan, Aaron, Marcus, Derek, Trevor, Cody, Dylan',
    ),
    last: w(
      'Smith, Johnson, Williams, Brown, Jones, Miller, Davis, Wilson, Anderson, Taylor, Thomas, Moore, Martin, Jackson, Thompson, White, Harris, Clark, Lewis, Robinson, Walker, Young, Allen, King, Wright, Scott, Hill, Green, Adams, Baker, Nelson, Carter, Mitchell, Roberts, Turner, Phillips, Campbell, Parker, Evans, Edwards, Collins, Stewart, Morris, Rogers, Reed, Cook, Morgan, Bell, Cooper, Richardson, Cox, Howard, Ward, Peterson, Gray, Hughes, Price, Bennett, Wood, Barnes, Ross, Henderson, Coleman, Jenkins, Perry, Powell, Long, Patterson, Foster, Bryant, Russell, Griffin, Hayes, Myers, Ford, Hamilton, Graham, Sullivan, Wallace, West, Cole, Hunt, Fisher, Ellis, Harrison, Gibson, Marshall, Holmes, Palmer, Lloyd, Fletcher, Chapman, Hawkins, Harper, Spencer, Webb, Knight, Mason, Hart, Shaw',
    ),
  },
  irish: {
    female: w('Aoife, Siobhán, Niamh, Ciara, Saoirse, Róisín, Orla, Caoimhe, Sinéad, Aisling, Clodagh, Éabha, Gráinne, Fiona, Maeve, Deirdre, Orlaith, Sorcha'),
    male: w('Ciarán, Seán, Conor, Cian, Oisín, Darragh, Eoin, Pádraig, Cathal, Colm, Diarmuid, Fionn, Liam, Niall, Rory, Declan, Ronan, Tadhg'),
    last: w(
      "Murphy, Kelly, O'Sullivan, Walsh, O'Brien, Byrne, Ryan, O'Connor, O'Neill, O'Reilly, Doyle, McCarthy, Gallagher, Doherty, Kennedy, Lynch, Murray, Quinn, Moore, McLoughlin, Brennan, Fitzgerald, Kavanagh, Nolan, Dunne, Healy, Flanagan, Keane, Whelan, MacNamara",
    ),
  },
  hispanic: {
    female: w(
      'María, Sofía, Lucía, Valentina, Camila, Isabella, Daniela, Gabriela, Ana, Carmen, Laura, Paula, Elena, Marta, Alejandra, Fernanda, Ximena, Mariana, Andrea, Natalia, Claudia, Verónica, Adriana, Beatriz, Rocío, Pilar, Inés, Lorena',
    ),
    male: w(
      'José, Juan, Carlos, Luis, Miguel, Javier, Alejandro, Diego, Pablo, Sergio, Andrés, Fernando, Jorge, Ricardo, Manuel, Antonio, Francisco, Rafael, Eduardo, Raúl, Óscar, Álvaro, Mateo, Santiago, Gonzalo, Ignacio, Héctor, Emilio',
    ),
    last: w(
      'García, Rodríguez, Martínez, Hernández, López, González, Pérez, Sánchez, Ramírez, Torres, Flores, Rivera, Gómez, Díaz, Reyes, Morales, Cruz, Ortiz, Gutiérrez, Chávez, Ramos, Ruiz, Jiménez, Moreno, Álvarez, Romero, Navarro, Domínguez, Vázquez, Castillo, Herrera, Medina, Aguilar, Vargas, Castro, Fernández, Molina, Serrano, Delgado, Ortega, Mendoza, Guerrero, Núñez, Iglesias, Rubio, Cabrera, Fuentes, Soto',
    ),
  },
  portuguese: {
    female: w(
      'Ana, Maria, Juliana, Fernanda, Camila, Beatriz, Larissa, Mariana, Gabriela, Letícia, Bruna, Aline, Patrícia, Luana, Carolina, Renata, Tatiana, Isabela, Vitória, Raquel',
    ),
    male: w(
      'João, Pedro, Lucas, Gabriel, Rafael, Mateus, Gustavo, Felipe, Thiago, Bruno, Rodrigo, Leonardo, Eduardo, André, Marcelo, Ricardo, Vinícius, Diego, Fábio, Paulo',
    ),
    last: w(
      'Silva, Santos, Oliveira, Souza, Rodrigues, Ferreira, Alves, Pereira, Lima, Gomes, Costa, Ribeiro, Martins, Carvalho, Almeida, Lopes, Soares, Fernandes, Vieira, Barbosa, Rocha, Dias, Nascimento, Andrade, Moreira, Nunes, Marques, Machado, Mendes, Freitas, Cardoso, Teixeira, Correia, Pinto, Araújo',
    ),
  },
  german: {
    umlautE: true,
    female: w(
      'Anna, Laura, Julia, Lena, Sarah, Katharina, Lisa, Hannah, Sophie, Marie, Johanna, Leonie, Franziska, Christina, Sabine, Susanne, Petra, Claudia, Anja, Nicole, Stefanie, Jana, Miriam, Ulrike, Birgit, Theresa, Carolin, Jülide',
    ),
    male: w(
      'Lukas, Maximilian, Jonas, Felix, Leon, Paul, Tobias, Florian, Sebastian, Stefan, Andreas, Michael, Thomas, Markus, Christian, Matthias, Alexander, Daniel, Jan, Tim, Niklas, Moritz, Philipp, Jürgen, Uwe, Jörg, Wolfgang, Björn, Dominik, Frank',
    ),
    last: w(
      'Müller, Schmidt, Schneider, Fischer, Weber, Meyer, Wagner, Becker, Schulz, Hoffmann, Schäfer, Koch, Bauer, Richter, Klein, Wolf, Schröder, Neumann, Schwarz, Zimmermann, Braun, Krüger, Hofmann, Hartmann, Lange, Schmitt, Werner, Krause, Meier, Lehmann, Schmid, Schulze, Maier, Köhler, Herrmann, König, Walter, Mayer, Huber, Kaiser, Fuchs, Peters, Lang, Scholz, Möller, Weiß, Jung, Hahn, Vogel, Friedrich, Keller, Günther, Frank, Berger, Winkler, Roth, Beck, Lorenz, Baumann, Franke',
    ),
  },
  french: {
    female: w(
      'Camille, Léa, Manon, Chloé, Inès, Emma, Sarah, Julie, Marie, Pauline, Claire, Élodie, Mathilde, Céline, Aurélie, Sophie, Charlotte, Juliette, Margaux, Anaïs, Lucie, Océane, Émilie, Hélène, Nathalie, Isabelle, Amélie, Cécile',
    ),
    male: w(
      'Thomas, Nicolas, Julien, Maxime, Alexandre, Antoine, Pierre, Hugo, Lucas, Louis, Mathieu, Romain, Guillaume, Sébastien, Florian, Kévin, Quentin, Benoît, Laurent, François, Jérôme, Olivier, Vincent, Théo, Clément, Arnaud, Étienne, Rémi',
    ),
    last: w(
      'Martin, Bernard, Dubois, Thomas, Robert, Richard, Petit, Durand, Leroy, Moreau, Simon, Laurent, Lefebvre, Michel, Garcia, David, Bertrand, Roux, Vincent, Fournier, Morel, Girard, André, Lefèvre, Mercier, Dupont, Lambert, Bonnet, François, Martinez, Legrand, Garnier, Faure, Rousseau, Blanc, Guérin, Muller, Henry, Roussel, Nicolas, Perrin, Morin, Mathieu, Clément, Gauthier, Dumont, Lopez, Fontaine, Chevalier, Robin',
    ),
  },
  dutch: {
    female: w(
      'Emma, Sanne, Lotte, Anouk, Fleur, Eva, Lieke, Iris, Femke, Marloes, Esther, Inge, Maaike, Noor, Sophie, Julia, Anne, Lisa, Merel, Roos, Ilse, Floor',
    ),
    male: w(
      'Daan, Sem, Lars, Bram, Thijs, Ruben, Jeroen, Bas, Sander, Joost, Pieter, Maarten, Wouter, Koen, Niels, Martijn, Tim, Jasper, Gijs, Stijn, Rutger, Hendrik',
    ),
    last: w(
      'de Jong, Jansen, de Vries, van den Berg, van Dijk, Bakker, Janssen, Visser, Smit, Meijer, de Boer, Mulder, de Groot, Bos, Vos, Peters, Hendriks, van Leeuwen, Dekker, Brouwer, de Wit, Dijkstra, Smits, de Graaf, van der Meer, van der Linden, Kok, Jacobs, de Haan, Vermeulen, van den Heuvel, van der Veen, van Beek, Willems, Verhoeven',
    ),
  },
  italian: {
    female: w(
      'Giulia, Francesca, Chiara, Sara, Martina, Valentina, Alessia, Federica, Elisa, Silvia, Elena, Giorgia, Alice, Beatrice, Laura, Paola, Roberta, Serena, Claudia, Ilaria, Marta, Aurora',
    ),
    male: w(
      'Marco, Luca, Alessandro, Andrea, Matteo, Francesco, Lorenzo, Davide, Simone, Federico, Riccardo, Stefano, Giovanni, Paolo, Roberto, Giuseppe, Antonio, Fabio, Emanuele, Niccolò, Tommaso, Pietro',
    ),
    last: w(
      'Rossi, Russo, Ferrari, Esposito, Bianchi, Romano, Colombo, Ricci, Marino, Greco, Bruno, Gallo, Conti, De Luca, Mancini, Costa, Giordano, Rizzo, Lombardi, Moretti, Barbieri, Fontana, Santoro, Mariani, Rinaldi, Caruso, Ferrara, Galli, Martini, Leone, Longo, Gentile, Martinelli, Vitale, Serra, Coppola, De Santis, Marchetti, Villa, Fabbri',
    ),
  },
  nordic: {
    female: w(
      'Elsa, Maja, Ebba, Wilma, Alva, Ella, Linnea, Astrid, Ingrid, Karin, Sofia, Klara, Sara, Emma, Frida, Hanna, Johanna, Malin, Annika, Sigrid, Åsa, Märta',
    ),
    male: w(
      'Erik, Lars, Anders, Johan, Karl, Nils, Oskar, Gustav, Axel, Emil, Viktor, Magnus, Henrik, Fredrik, Mattias, Jonas, Björn, Pär, Mikael, Sven, Olof, Håkan',
    ),
    last: w(
      'Andersson, Johansson, Karlsson, Nilsson, Eriksson, Larsson, Olsson, Persson, Svensson, Gustafsson, Pettersson, Jonsson, Jansson, Hansson, Bengtsson, Jönsson, Lindberg, Jakobsson, Magnusson, Lindström, Olofsson, Lindqvist, Lindgren, Berg, Axelsson, Bergström, Lundberg, Lundgren, Lind, Mattsson, Berglund, Fredriksson, Sandberg, Henriksson, Sjöberg, Forsberg, Åberg, Holm, Engström, Ekström',
    ),
  },
  slavic: {
    female: w(
      'Anna, Katarzyna, Magdalena, Agnieszka, Joanna, Natalia, Olga, Ekaterina, Tatiana, Irina, Elena, Marta, Zuzana, Petra, Ivana, Milena, Jelena, Dorota, Alicja, Yulia, Oksana, Svetlana',
    ),
    male: w(
      'Piotr, Tomasz, Krzysztof, Marek, Paweł, Andrzej, Michał, Jakub, Dmitri, Sergei, Alexei, Ivan, Nikolai, Mikhail, Pavel, Jan, Milan, Luka, Nikola, Stefan, Oleksandr, Bogdan',
    ),
    last: w(
      'Nowak, Kowalski, Wiśniewski, Wójcik, Kowalczyk, Kamiński, Lewandowski, Zieliński, Szymański, Woźniak, Dąbrowski, Kozłowski, Ivanov, Petrov, Smirnov, Kuznetsov, Popov, Sokolov, Volkov, Novák, Svoboda, Dvořák, Horvat, Kovač, Marković, Petrović, Jovanović, Shevchenko, Kovalenko, Bondarenko, Tkachenko, Novak',
    ),
  },
  turkish: {
    female: w('Zeynep, Elif, Ayşe, Fatma, Emine, Merve, Büşra, Esra, Selin, Derya, Gizem, Özlem, Aylin, Deniz, Ebru, Seda'),
    male: w('Mehmet, Mustafa, Ahmet, Ali, Hüseyin, Murat, Emre, Burak, Can, Cem, Serkan, Volkan, Onur, Kerem, Barış, Oğuz'),
    last: w(
      'Yılmaz, Kaya, Demir, Şahin, Çelik, Yıldız, Yıldırım, Öztürk, Aydın, Özdemir, Arslan, Doğan, Kılıç, Aslan, Çetin, Kara, Koç, Kurt, Özkan, Şimşek, Polat, Korkmaz, Erdoğan, Aksoy',
    ),
  },
  greek: {
    female: w('Maria, Eleni, Katerina, Sofia, Georgia, Dimitra, Ioanna, Vasiliki, Anastasia, Christina, Despina, Alexandra'),
    male: w('Georgios, Dimitrios, Konstantinos, Ioannis, Nikolaos, Panagiotis, Christos, Vasilis, Athanasios, Michalis, Stavros, Yannis'),
    last: w(
      'Papadopoulos, Papadakis, Georgiou, Dimitriou, Nikolaidis, Konstantinou, Vlachos, Antoniou, Karagiannis, Oikonomou, Christodoulou, Alexiou, Makris, Pappas, Economou, Kostopoulos',
    ),
  },
  arabic: {
    female: w('Fatima, Aisha, Mariam, Layla, Nour, Yasmin, Sara, Huda, Amira, Rania, Salma, Dina, Leila, Hana, Zainab, Lina, Rana, Noura'),
    male: w('Mohammed, Ahmed, Omar, Ali, Youssef, Khalid, Hassan, Ibrahim, Karim, Tarek, Samir, Rami, Walid, Nabil, Hamza, Bilal, Mehdi, Sami'),
    last: w(
      'Haddad, Khoury, Nasser, Hassan, Saleh, Mansour, Farah, Aziz, Rahman, Hamdan, Said, Khalil, Ibrahim, Abdullah, Benali, El Amrani, Bouzid, Mahmoud, Youssef, Darwish, Najjar, Sabbagh, Kassem, Ayoub',
    ),
  },
  african: {
    female: w('Amara, Chiamaka, Ngozi, Adaeze, Folake, Abena, Ama, Akosua, Zainab, Imani, Nia, Ayodele, Kemi, Thandiwe, Zanele, Wanjiru'),
    male: w('Chinedu, Emeka, Oluwaseun, Tunde, Kwame, Kofi, Kwabena, Yaw, Babajide, Obinna, Ikenna, Sipho, Thabo, Kamau, Jomo, Femi'),
    last: w(
      'Okafor, Okonkwo, Adeyemi, Adebayo, Olawale, Eze, Nwosu, Balogun, Mensah, Asante, Owusu, Boateng, Osei, Appiah, Nkosi, Dlamini, Mwangi, Kamau, Otieno, Achebe, Obi, Afolabi',
    ),
  },
  indian: {
    female: w(
      'Priya, Ananya, Divya, Pooja, Neha, Shreya, Aishwarya, Kavya, Sneha, Anjali, Deepika, Meera, Lakshmi, Swati, Nisha, Ritu, Shalini, Aditi, Isha, Riya, Sunita, Pallavi, Harini, Nandini',
    ),
    male: w(
      'Rahul, Amit, Arjun, Vikram, Rohan, Sanjay, Rajesh, Suresh, Anil, Vivek, Karthik, Aditya, Nikhil, Pranav, Ravi, Manish, Deepak, Ashok, Siddharth, Varun, Harish, Gaurav, Venkatesh, Abhishek',
    ),
    last: w(
      'Sharma, Patel, Singh, Kumar, Gupta, Reddy, Iyer, Nair, Rao, Mehta, Shah, Joshi, Desai, Agarwal, Verma, Chopra, Malhotra, Kapoor, Menon, Pillai, Krishnan, Subramanian, Bhat, Kulkarni, Banerjee, Chatterjee, Mukherjee, Das, Ghosh, Naidu, Chaudhary, Saxena, Srinivasan, Venkataraman, Jain, Bose',
    ),
  },
  chinese: {
    female: w('Wei, Mei, Xin, Yan, Li, Jing, Hui, Ying, Fang, Xiaoling, Lin, Yue, Qian, Jia, Shu, Ling, Hong, Xiu'),
    male: w('Wei, Jun, Hao, Lei, Ming, Jian, Tao, Bo, Chen, Yong, Feng, Gang, Qiang, Hui, Long, Kai, Zhiwei, Jiahao'),
    last: w(
      'Wang, Li, Zhang, Liu, Chen, Yang, Huang, Zhao, Wu, Zhou, Xu, Sun, Ma, Zhu, Hu, Guo, He, Lin, Gao, Luo, Zheng, Liang, Tan, Lim, Ng, Lee, Wong, Chan, Tang, Ho, Chua, Goh, Teo, Koh',
    ),
  },
  japanese: {
    female: w('Yuki, Haruka, Aoi, Sakura, Yui, Misaki, Nanami, Ayaka, Mai, Rina, Emi, Kaori, Akiko, Naomi, Yoko, Keiko, Saki, Mao'),
    male: w('Haruto, Hiroshi, Takeshi, Kenji, Daisuke, Yuto, Sota, Ren, Kazuki, Takumi, Ryo, Shota, Naoki, Kenta, Tatsuya, Hiroki, Satoshi, Makoto'),
    last: w(
      'Sato, Suzuki, Takahashi, Tanaka, Watanabe, Ito, Yamamoto, Nakamura, Kobayashi, Kato, Yoshida, Yamada, Sasaki, Yamaguchi, Matsumoto, Inoue, Kimura, Hayashi, Shimizu, Yamazaki, Mori, Abe, Ikeda, Hashimoto, Ishikawa, Ogawa, Fujita, Okada, Goto, Hasegawa',
    ),
  },
  korean: {
    female: w('Ji-woo, Seo-yeon, Min-ji, Ha-eun, Soo-jin, Eun-ji, Hye-jin, Yuna, Ji-hye, Da-eun, Yeon-woo, Su-bin'),
    male: w('Min-jun, Seo-jun, Ji-hoon, Hyun-woo, Jae-won, Dong-hyun, Sung-min, Joon-ho, Tae-yang, Woo-jin, Young-ho, Jin-woo'),
    last: w('Kim, Lee, Park, Choi, Jung, Kang, Cho, Yoon, Jang, Lim, Han, Oh, Seo, Shin, Kwon, Hwang, Ahn, Song'),
  },
  vietnamese: {
    female: w('Linh, Trang, Huong, Lan, Mai, Thao, Ngoc, Hoa, Phuong, Anh, Thu, Nhung, Vy, Hanh'),
    male: w('Minh, Tuan, Hung, Duc, Quang, Nam, Long, Khoa, Huy, Thanh, Phong, Dung, Bao, Vinh'),
    last: w('Nguyen, Tran, Le, Pham, Hoang, Huynh, Phan, Vu, Vo, Dang, Bui, Do, Ho, Ngo, Duong, Ly'),
  },
  malay: {
    female: w('Nur, Siti, Aisyah, Nurul, Farah, Amira, Putri, Dewi, Sari, Ayu, Intan, Rina, Wulan, Indah'),
    male: w('Muhammad, Ahmad, Hafiz, Faizal, Irfan, Rizal, Arif, Budi, Agus, Eko, Hendra, Rudi, Wahyu, Iskandar'),
    last: w('Abdullah, Rahman, Ismail, Hassan, Ibrahim, Yusof, Osman, Hamid, Santoso, Wijaya, Hidayat, Saputra, Setiawan, Kusuma, Pratama, Nugroho'),
  },
};

const UMLAUT_E: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', Ä: 'ae', Ö: 'oe', Ü: 'ue' };
const SPECIAL: Record<string, string> = { ß: 'ss', æ: 'ae', Æ: 'ae', ø: 'o', Ø: 'o', œ: 'oe', Œ: 'oe', ł: 'l', Ł: 'l', đ: 'd', Đ: 'd', ı: 'i' };

const TRIM_DASHES = /^-+|-+$/g;

/**
 * Lower-case ASCII for emails, URL slugs and domains: `Müller` → `mueller` (German style) or `muller`,
 * `José` → `jose`, `O'Brien` → `obrien`, `van den Berg` → `vandenberg` (separator `-`: `van-den-berg`).
 * `normalize('NFD')` is Unicode-defined, so the result does not depend on the machine's locale.
 */
export function asciiSlug(text: string, opts: { umlautE?: boolean; separator?: '' | '-' } = {}): string {
  let s = '';
  for (const ch of text) s += (opts.umlautE && UMLAUT_E[ch]) || SPECIAL[ch] || ch;
  s = s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[’'`.]/g, '');
  if (opts.separator === '-') return s.replace(/[^a-z0-9]+/g, '-').replace(TRIM_DASHES, '');
  return s.replace(/[^a-z0-9]+/g, '');
}
